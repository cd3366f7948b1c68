import { describe, expect, it } from 'vitest';
import { SseDecoder } from '../../providers/framing/sse-decoder.js';
import { HiddenEventFilter } from './hidden-event-filter.js';

const USAGE = 'data: {"choices":[],"usage":{"prompt_tokens":1}}\n\n';
const CHUNK = 'data: {"choices":[{"index":0,"delta":{"content":"hi"}}],"usage":null}\n\n';
const DONE = 'data: [DONE]\n\n';

/** Feeds the stream in reads cut at the given offsets; returns what the client gets. */
function run(stream: string, cuts: number[]): { out: string; writes: Array<Uint8Array | string> } {
  const sse = new SseDecoder();
  const filter = new HiddenEventFilter((event) => event.data.includes('"usage":{'));
  const writes: Array<Uint8Array | string> = [];
  let at = 0;
  for (const cut of [...cuts, stream.length]) {
    const bytes = Buffer.from(stream.slice(at, cut));
    at = cut;
    writes.push(filter.push(bytes, sse.push(bytes), sse.hasPartialEvent));
  }
  writes.push(filter.end(sse.end()));
  return {
    out: writes.map((each) => (typeof each === 'string' ? each : Buffer.from(each).toString())).join(''),
    writes,
  };
}

describe('HiddenEventFilter', () => {
  it('passes the very bytes of reads without a hidden event', () => {
    const { out, writes } = run(CHUNK + CHUNK, [CHUNK.length]);
    expect(out).toBe(CHUNK + CHUNK);
    expect(writes.slice(0, 2).every((each) => each instanceof Uint8Array)).toBe(true);
  });

  it('leaves out the hidden event, also when a read ends inside it', () => {
    const stream = CHUNK + USAGE + DONE;
    for (const cut of [CHUNK.length + 5, CHUNK.length + USAGE.length - 1, 3])
      expect(run(stream, [cut]).out).toBe(CHUNK + DONE);
  });

  it('keeps the upstream line ends when it frames again', () => {
    const crlf = (text: string) => text.replace(/\n/g, '\r\n');
    expect(run(crlf(CHUNK + USAGE + DONE), []).out).toBe(crlf(CHUNK + DONE));
  });
});

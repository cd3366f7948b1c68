import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

/**
 * The stream path reads the upstream body to its end after [DONE] instead of breaking out of the
 * loop (which cost an AbortError with a stack trace per stream). These pin what the client sees
 * when the upstream does not close right after [DONE], on the translated path and on chat
 * pass-through (the upstream's bytes, [DONE] included, are the client's answer).
 */
const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'u-1', object: 'chat.completion.chunk', created: 1, model: 'mock-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** What an upstream may write right after its [DONE], as its own HTTP chunk. */
const TRAILERS: Record<string, string> = { comment: ': after the end\n\n', newline: '\n' };

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  upstream.answer((request) => {
    const answer = chunk({ role: 'assistant', content: '' }) + chunk({ content: 'hello' }) + chunk({}, 'stop');
    // What the upstream does after [DONE] is named by the request's message (both paths forward it).
    const [afterDone] = String(request.json.messages?.[0]?.content ?? '').split(':');
    // The answer without its end: the test writes [DONE] and what follows it (`later`).
    if (afterDone === 'later') return { headers: { 'content-type': 'text/event-stream' }, body: [answer], hold: true };
    return {
      headers: { 'content-type': 'text/event-stream' },
      body: [answer + 'data: [DONE]\n\n', ...(afterDone === 'garbage' ? ['data: {not json\n\n'] : [])],
      // The response stays open until the test lets it go.
      hold: true,
    };
  });
  const url = `${upstream.url}/v1`;
  const timeouts = '{ connect_ms: 1000, first_byte_ms: 2000, idle_ms: 1500, total_ms: 5000 }';
  gateway = await startTestGateway({
    configText: `
providers:
  - { id: mock, type: openai, base_url: ${url}, timeouts: ${timeouts} }
  - { id: through, type: openai, base_url: ${url}, timeouts: ${timeouts}, options: { chat_pass_through: true } }
models:
  - id: test/chat
    endpoints: [{ provider: mock, upstream_model: mock-model, pricing: { prompt: 0.5, completion: 1.5 } }]
  - id: test/native
    endpoints: [{ provider: through, upstream_model: mock-model, pricing: { prompt: 0.5, completion: 1.5 } }]
`,
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function streamThroughGateway(model: string, afterDone = 'hi'): Promise<string> {
  const response = await fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: afterDone }] }),
  });
  expect(response.status).toBe(200);
  return response.text();
}

describe.each(['test/chat', 'test/native'])('an upstream that keeps the stream open after [DONE] (%s)', (model) => {
  it('still ends the client stream with [DONE] while the upstream is open', async () => {
    upstream.held.length = 0;
    const text = await streamThroughGateway(model);
    expect(text).toContain('"content":"hello"');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(upstream.held[0].writableEnded).toBe(false);
    upstream.held[0].end();
  });

  it('takes what it sends after [DONE], even garbage, for no error', async () => {
    upstream.held.length = 0;
    const text = await streamThroughGateway(model, 'garbage');
    const [, afterDone] = text.split('data: [DONE]\n\n');
    // Translated: the gateway's own [DONE] ends the answer. Pass-through: the upstream's bytes that
    // came with its [DONE] (here in the same turn of reads, or not, as the sockets go) follow it.
    if (model === 'test/chat') expect(afterDone).toBe('');
    else expect(['', 'data: {not json\n\n']).toContain(afterDone);
    expect(text).not.toContain('event: error');
    expect(upstream.requests.at(-1)!.json.messages[0].content).toBe('garbage');
    upstream.held[0].end();
  });
});

/**
 * A pass-through forwards the upstream's bytes: what the upstream wrote right after its [DONE]
 * (a trailing comment or newline, its own HTTP chunk, read in the same turn) went to the client
 * when the body was read with `for await` (which joined the reads buffered between two turns) and
 * must again with the listener reader, which hands each read over on its own (request-path step).
 */
describe('chat pass-through: bytes the upstream writes right after its [DONE]', () => {
  /** Streams until the answer's first words reached the client (the body is read as it comes), then lets `finish` end it upstream. */
  async function streamEndedLater(finish: (held: ServerResponse) => void): Promise<string> {
    upstream.held.length = 0;
    const response = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'test/native', stream: true, messages: [{ role: 'user', content: 'later' }] }),
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('"finish_reason":"stop"')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended early: ${text}`);
      text += decoder.decode(value, { stream: true });
    }
    finish(upstream.held[0]!);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return text + decoder.decode();
      text += decoder.decode(value, { stream: true });
    }
  }

  /**
   * Node joins a response's writes of one tick into one HTTP chunk (the socket is corked until the
   * next tick): the next write goes after that, as its own chunk, still before this process (the
   * gateway is in it) reads its sockets again, so the gateway reads both in one turn.
   */
  const afterThisWrite = (write: () => void) => process.nextTick(write);

  it.each(Object.keys(TRAILERS))('are forwarded (%s), the upstream closing', async (trailer) => {
    const text = await streamEndedLater((held) => {
      held.write('data: [DONE]\n\n');
      afterThisWrite(() => {
        held.write(TRAILERS[trailer]!);
        held.end();
      });
    });
    expect(text).toContain('"content":"hello"');
    expect(text.endsWith(`data: [DONE]\n\n${TRAILERS[trailer]}`)).toBe(true);
  });

  it('are forwarded and the answer still ends while the upstream stays open', async () => {
    const text = await streamEndedLater((held) => {
      held.write('data: [DONE]\n\n');
      afterThisWrite(() => held.write(TRAILERS.comment!));
    });
    expect(text.endsWith(`data: [DONE]\n\n${TRAILERS.comment}`)).toBe(true);
    expect(upstream.held[0]!.writableEnded).toBe(false);
    upstream.held[0]!.end();
  });
});

import { describe, expect, it } from 'vitest';
import { SseDecoder } from './sse-decoder.js';

const encode = (text: string) => new TextEncoder().encode(text);

function decodeAll(parts: string[]) {
  const decoder = new SseDecoder();
  const events = parts.flatMap((part) => decoder.push(encode(part)));
  return [...events, ...decoder.end()];
}

describe('SseDecoder', () => {
  it.each([
    ['LF', 'data: {"a":1}\n\ndata: [DONE]\n\n'],
    ['CRLF', 'data: {"a":1}\r\n\r\ndata: [DONE]\r\n\r\n'],
    ['CR', 'data: {"a":1}\r\rdata: [DONE]\r\r'],
  ])('splits events separated by %s line ends', (_name, text) => {
    expect(decodeAll([text]).map((event) => event.data)).toEqual(['{"a":1}', '[DONE]']);
  });

  it('reassembles an event split at every byte, including a CRLF and a multi-byte character', () => {
    const text = 'event: message_start\r\ndata: {"text":"héllo ✓"}\r\n\r\n';
    const decoder = new SseDecoder();
    const bytes = encode(text);
    const events = [];
    for (const byte of bytes) events.push(...decoder.push(Uint8Array.of(byte)));
    events.push(...decoder.end());
    expect(events).toEqual([{ event: 'message_start', data: '{"text":"héllo ✓"}', id: null }]);
  });

  it('joins multi-line data, skips comments and keeps event names', () => {
    const events = decodeAll([': ping\n\nevent: error\ndata: line one\ndata: line two\n\n']);
    expect(events).toEqual([{ event: 'error', data: 'line one\nline two', id: null }]);
  });

  it('flushes a last event with no blank line at end and reports partial events', () => {
    const decoder = new SseDecoder();
    decoder.push(encode('data: {"partial":'));
    expect(decoder.hasPartialEvent).toBe(true);
    expect(decoder.end()).toEqual([{ event: null, data: '{"partial":', id: null }]);
  });
});

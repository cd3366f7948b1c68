import { describe, expect, it } from 'vitest';
import { geminiNative } from './gemini-native.js';

/** A Gemini stream has no end marker: the reader says when every candidate asked for has finished. */
const readerFor = (body: Record<string, unknown> = {}) =>
  geminiNative.createUsageReader({ body, stream: true, clientHeaders: {} });
const chunk = (candidates: object[], extra: object = {}) => ({
  event: null,
  id: null,
  data: JSON.stringify({ candidates, ...extra }),
});
const text = (index: number, finishReason?: string) => ({
  index,
  content: { role: 'model', parts: [{ text: 'hi' }] },
  ...(finishReason ? { finishReason } : {}),
});

describe('Gemini native usage reader: endsIfQuiet', () => {
  it('a finish reason ends one candidate; text after it (a server naming it early) clears that', () => {
    const reader = readerFor();
    reader.event(chunk([text(0)]));
    expect(reader.endsIfQuiet).toBe(false);
    reader.event(chunk([text(0, 'STOP')]));
    expect(reader.endsIfQuiet).toBe(true);
    reader.event(chunk([text(0)]));
    expect(reader.endsIfQuiet).toBe(false);
  });

  it('a usage-only chunk after the finish reason keeps it, and the stream is complete with its usage', () => {
    const reader = readerFor();
    reader.event(chunk([text(0, 'MAX_TOKENS')]));
    reader.event({
      event: null,
      id: null,
      data: JSON.stringify({ usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2 } }),
    });
    expect(reader.endsIfQuiet).toBe(true);
    reader.end();
    expect(reader.complete).toBe(true);
    expect(reader.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 2 });
  });

  it('two candidates asked: the answer may end only once both finished', () => {
    const reader = readerFor({ generationConfig: { candidateCount: 2 } });
    reader.event(chunk([text(0, 'STOP'), text(1)]));
    expect(reader.endsIfQuiet).toBe(false);
    reader.event(chunk([text(1)]));
    expect(reader.endsIfQuiet).toBe(false);
    reader.event(chunk([text(1, 'STOP')]));
    expect(reader.endsIfQuiet).toBe(true);
  });

  it('FINISH_REASON_UNSPECIFIED, an error chunk or a chunk that does not parse ends nothing (and does not throw)', () => {
    const reader = readerFor();
    reader.event(chunk([text(0, 'FINISH_REASON_UNSPECIFIED')]));
    expect(reader.endsIfQuiet).toBe(false);
    reader.event(chunk([text(0, 'STOP')], { error: { status: 'INTERNAL' } }));
    expect(reader.endsIfQuiet).toBe(false);
    reader.event({ event: null, id: null, data: '{"finishReason": not json' });
    expect(reader.endsIfQuiet).toBe(false);
  });
});

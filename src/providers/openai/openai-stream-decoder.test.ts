import { describe, expect, it } from 'vitest';
import { testTranslationContext } from '../../../test/helpers/translation-context.js';
import { UpstreamError } from '../../shared/errors.js';
import { OpenAIStreamDecoder } from './openai-stream-decoder.js';

const sse = (...payloads: unknown[]) =>
  new TextEncoder().encode(payloads.map((payload) => `data: ${JSON.stringify(payload)}\n\n`).join(''));

describe('the OpenAI stream decoder checks each chunk', () => {
  it('a partial chunk (no object, created, index, finish_reason) is filled; fields it does not read pass through', () => {
    const decoder = new OpenAIStreamDecoder(testTranslationContext());
    const events = decoder.push(
      sse({
        id: 'up',
        model: 'up-model',
        choices: [{ delta: { content: 'Hi', role: 'assistant', extra: 1 } }],
        vendor: { a: 1 },
      }),
    );
    expect(events).toEqual([
      {
        type: 'chunk',
        chunk: {
          id: 'chatcmpl-test',
          object: 'chat.completion.chunk',
          created: 1_700_000_000,
          model: 'test/model',
          vendor: { a: 1 },
          choices: [{ index: 0, delta: { content: 'Hi', role: 'assistant', extra: 1 }, finish_reason: null }],
        },
      },
    ]);
  });

  it('usage on a choices-less chunk (and Groq x_groq.usage) is reported apart; missing counts are 0', () => {
    const decoder = new OpenAIStreamDecoder(testTranslationContext());
    const events = decoder.push(
      sse(
        { choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } },
        { x_groq: { usage: { prompt_tokens: 4 } } },
      ),
    );
    expect(events).toEqual([
      { type: 'usage', usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } },
      { type: 'usage', usage: { prompt_tokens: 4, completion_tokens: 0, total_tokens: 4 } },
    ]);
  });

  it.each([
    ['choices not an array', { choices: 'x' }, '/choices'],
    ['content a number', { choices: [{ index: 0, delta: { content: 5 } }] }, '/choices/0/delta/content'],
    [
      'tool call arguments an object',
      { choices: [{ delta: { tool_calls: [{ function: { arguments: {} } }] } }] },
      '/arguments',
    ],
    ['usage tokens a string', { choices: [], usage: { prompt_tokens: '3' } }, '/usage'],
    ['an array', [1], ''],
  ])('a chunk with %s is a 502 upstream_bad_response naming the field', (_name, payload, where) => {
    const decoder = new OpenAIStreamDecoder(testTranslationContext());
    let caught: unknown;
    try {
      decoder.push(sse(payload));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UpstreamError);
    const error = caught as UpstreamError;
    expect(error.status).toBe(502);
    expect(error.code).toBe('upstream_bad_response');
    expect(error.message).toContain(where);
  });
});

describe('a stream of compact chunks (the benchmark upstream’s layout), however its reads are cut', () => {
  const head =
    '{"id":"chatcmpl-up","object":"chat.completion.chunk","created":1770000000,"model":"up-model","system_fingerprint":"fp_1","choices":';
  const choice = (delta: string, finish = 'null') =>
    `[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}]}`;
  const contents = ['Hello', ' the "usage":{"prompt_tokens":1} is text', ' usage', ' é😀\\n', ' end'];
  const usage = '[],"usage":{"prompt_tokens":11,"completion_tokens":200,"total_tokens":211}}';
  const events = (withUsage: boolean) => [
    head + choice('{"role":"assistant","content":"","refusal":null}'),
    ...contents.map((text) => head + choice(`{"content":"${text.replace(/"/g, '\\"')}"}`)),
    head + choice('{}', '"stop"'),
    ...(withUsage ? [head + usage] : []),
    '[DONE]',
  ];
  const streamText = (withUsage: boolean, lineEnd = '\n') =>
    events(withUsage)
      .map((data) => `data: ${data}${lineEnd}${lineEnd}`)
      .join('');

  /** The decoder's events as the stream writer uses them: each chunk's text, the usage, the end. */
  function decode(reads: Uint8Array[]): string[] {
    const decoder = new OpenAIStreamDecoder(testTranslationContext());
    const seen: string[] = [];
    const take = (decoded: ReturnType<OpenAIStreamDecoder['push']>) => {
      for (const event of decoded)
        if (event.type === 'chunk') seen.push(event.json ?? JSON.stringify(event.chunk));
        else if (event.type === 'usage') seen.push(`usage ${JSON.stringify(event.usage)}`);
        else seen.push(event.type);
    };
    for (const read of reads) take(decoder.push(read));
    take(decoder.end());
    return seen;
  }

  const splits = (bytes: Uint8Array) =>
    Array.from({ length: bytes.length + 1 }, (_, at) => [bytes.subarray(0, at), bytes.subarray(at)]);

  it('one read: every chunk is the upstream text renamed, the usage reported apart, then the end', () => {
    const seen = decode([new TextEncoder().encode(streamText(true))]);
    const chunks = events(true).slice(0, -2);
    expect(seen.slice(0, chunks.length).map((json) => JSON.parse(json))).toEqual(
      chunks.map((data) => ({ ...JSON.parse(data), id: 'chatcmpl-test', model: 'test/model' })),
    );
    expect(seen.slice(chunks.length)).toEqual([
      'usage {"prompt_tokens":11,"completion_tokens":200,"total_tokens":211}',
      'done',
    ]);
  });

  it.each([
    ['LF', true, '\n'],
    ['CRLF', true, '\r\n'],
    ['LF, no usage chunk', false, '\n'],
    ['CRLF, no usage chunk', false, '\r\n'],
  ])('%s: cut in two at every byte (inside the usage chunk too), the same events', (_, withUsage, lineEnd) => {
    const bytes = new TextEncoder().encode(streamText(withUsage, lineEnd));
    const whole = decode([new TextEncoder().encode(streamText(withUsage))]);
    expect(whole.some((seen) => seen.startsWith('usage'))).toBe(withUsage);
    for (const reads of splits(bytes)) expect(decode(reads)).toEqual(whole);
  });

  it('one read per byte: the same events', () => {
    const bytes = new TextEncoder().encode(streamText(true, '\r\n'));
    const reads = Array.from(bytes, (_, at) => bytes.subarray(at, at + 1));
    expect(decode(reads)).toEqual(decode([bytes]));
  });
});

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

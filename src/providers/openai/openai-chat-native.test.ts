import { describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../config/gateway-config.js';
import { chatNative, passesChatThrough } from './openai-chat-native.js';

const support = chatNative(() => {
  throw new Error('not built in these tests');
});
const reader = (includeUsage: boolean) =>
  support.createUsageReader({
    body: includeUsage ? { stream_options: { include_usage: true } } : {},
    stream: true,
    clientHeaders: {},
  });
const data = (payload: unknown) => ({ event: null, id: null, data: JSON.stringify(payload) });
const usage = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 };

describe('the chat pass-through usage reader', () => {
  it.each([
    ['the trailing usage chunk', { choices: [], usage }, usage],
    ['a usage on the finish chunk', { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage }, usage],
    ["Groq's x_groq.usage", { choices: [], x_groq: { id: 'r', usage } }, usage],
    [
      "DeepSeek's cache hits",
      { choices: [], usage: { ...usage, prompt_cache_hit_tokens: 3 } },
      { ...usage, prompt_cache_hit_tokens: 3, prompt_tokens_details: { cached_tokens: 3 } },
    ],
    ['usage: null (no report)', { choices: [{ index: 0, delta: { content: 'x' } }], usage: null }, null],
  ])('%s', (_name, payload, expected) => {
    const each = reader(true);
    each.event(data(payload));
    expect(each.usage).toEqual(expected);
  });

  it('counts delta text without parsing, escapes as one character', () => {
    const each = reader(true);
    each.event(data({ choices: [{ index: 0, delta: { content: 'a"b\nc' } }] }));
    each.event(data({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{}' } }] } }] }));
    expect(each.outputCharacters).toBe(7);
  });

  it('text that looks like a usage key is not one (quotes inside strings are escaped)', () => {
    const each = reader(false);
    const event = data({ choices: [], note: '"usage":{' });
    expect(event.data).not.toContain('"usage":{');
    each.event(data({ choices: [{ index: 0, delta: { content: '"usage":{"prompt_tokens":1}' } }] }));
    expect(each.usage).toBeNull();
  });

  it('[DONE] finishes, a finish reason completes, an error payload is the stream error', () => {
    const each = reader(true);
    each.event(data({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
    expect([each.complete, each.finished]).toEqual([true, false]);
    each.event({ event: null, id: null, data: '[DONE]' });
    expect(each.finished).toBe(true);
    const failing = reader(true);
    failing.event(data({ error: { message: 'overloaded', type: 'server_error', code: 'overloaded' } }));
    expect(failing.errorCode).toBe('overloaded');
  });

  it('hides the usage-only chunk only from a client that did not ask for usage', () => {
    const usageChunk = data({ choices: [], usage });
    const finishWithUsage = data({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage });
    expect(reader(true).hides).toBeUndefined();
    const hiding = reader(false);
    expect(hiding.hides!(usageChunk)).toBe(true);
    expect(hiding.hides!(finishWithUsage)).toBe(false);
    expect(hiding.hides!({ event: null, id: null, data: '[DONE]' })).toBe(false);
  });
});

describe('which providers pass chat through', () => {
  const provider = (fields: Partial<ProviderConfig>) =>
    ({ baseUrl: 'http://127.0.0.1:9/v1', options: {}, ...fields }) as ProviderConfig;
  it.each([
    ['OpenAI by its URL', provider({ baseUrl: 'https://api.openai.com/v1' }), true],
    ['OpenAI by its preset', provider({ preset: 'openai' }), true],
    ['OpenAI turned off', provider({ preset: 'openai', options: { chat_pass_through: false } }), false],
    ['a compatible server', provider({ preset: 'deepseek' }), false],
    ['a compatible server marked', provider({ options: { chat_pass_through: true } }), true],
  ])('%s', (_name, config, expected) => expect(passesChatThrough(config)).toBe(expected));
});

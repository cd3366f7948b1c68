import { describe, expect, it } from 'vitest';
import { testTranslationContext } from '../../../test/helpers/translation-context.js';
import { normalizeDelta, normalizeMessage, normalizeUsage } from './normalize-openai-compatible.js';

describe('normalizeDelta', () => {
  it.each([
    ['DeepSeek reasoning_content', { reasoning_content: 'Hm', content: null }, { reasoning: 'Hm', content: null }],
    [
      'DeepSeek empty reasoning_content',
      { role: 'assistant', content: null, reasoning_content: '' },
      { role: 'assistant', content: null },
    ],
    ['DeepSeek null reasoning_content', { content: 'Hi', reasoning_content: null }, { content: 'Hi' }],
    ['Groq reasoning stays', { reasoning: 'We', channel: 'analysis' }, { reasoning: 'We', channel: 'analysis' }],
    [
      'Magistral thinking chunks',
      {
        content: [
          {
            type: 'thinking',
            thinking: [
              { type: 'text', text: 'Okay' },
              { type: 'text', text: ', so' },
            ],
          },
        ],
      },
      { content: '', reasoning: 'Okay, so' },
    ],
    ['Magistral text chunks', { content: [{ type: 'text', text: 'Cross' }] }, { content: 'Cross' }],
    [
      'Mistral tool calls without index or type',
      {
        tool_calls: [
          { id: 'a', function: { name: 'f', arguments: '{}' } },
          { id: 'b', function: { name: 'g', arguments: '{}' } },
        ],
      },
      {
        tool_calls: [
          { index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } },
          { index: 1, id: 'b', type: 'function', function: { name: 'g', arguments: '{}' } },
        ],
      },
    ],
    [
      'OpenAI argument delta untouched',
      { tool_calls: [{ index: 2, function: { arguments: '{"a' } }] },
      { tool_calls: [{ index: 2, function: { arguments: '{"a' } }] },
    ],
  ])('%s', (_name, delta, expected) => {
    expect(normalizeDelta(delta as never)).toEqual(expected);
  });
});

describe('normalizeMessage', () => {
  it.each([
    [
      'DeepSeek',
      { role: 'assistant', content: 'A', reasoning_content: 'R' },
      { role: 'assistant', content: 'A', reasoning: 'R' },
    ],
    [
      'a tool call without an id gets one made',
      { role: 'assistant', content: null, tool_calls: [{ function: { name: 'f', arguments: '{}' } }] },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
    ],
    [
      'Mistral tool call without type',
      { role: 'assistant', tool_calls: [{ id: 'x', function: { name: 'f', arguments: '{}' } }] },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'x', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
    ],
  ])('%s', (_name, message, expected) => {
    expect(normalizeMessage(message as never, testTranslationContext())).toEqual(expected);
  });
});

describe('normalizeUsage', () => {
  it.each([
    [
      'DeepSeek cache hits become cached_tokens',
      {
        prompt_tokens: 18,
        completion_tokens: 3,
        total_tokens: 21,
        prompt_cache_hit_tokens: 10,
        prompt_cache_miss_tokens: 8,
      },
      { cached_tokens: 10 },
    ],
    [
      'an explicit cached_tokens wins',
      {
        prompt_tokens: 1,
        completion_tokens: 1,
        total_tokens: 2,
        prompt_cache_hit_tokens: 5,
        prompt_tokens_details: { cached_tokens: 0 },
      },
      { cached_tokens: 0 },
    ],
    ['nothing to do', { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, undefined],
  ])('%s', (_name, usage, details) => {
    expect(normalizeUsage(usage).prompt_tokens_details).toEqual(details);
  });
});

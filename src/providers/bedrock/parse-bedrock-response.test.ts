import { describe, expect, it } from 'vitest';
import { fixtureBytes } from '../../../test/helpers/fixtures.js';
import { testTranslationContext } from '../../../test/helpers/translation-context.js';
import { UpstreamError } from '../../shared/errors.js';
import { JSON_MODE_TOOL_NAME } from './convert-to-bedrock-request.js';
import { parseBedrockResponse } from './parse-bedrock-response.js';
import { convertBedrockUsage } from './convert-bedrock-usage.js';
import { mapBedrockStopReason } from './map-bedrock-stop-reason.js';

const context = testTranslationContext({ type: 'bedrock', name: 'Bedrock' });
const encode = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));

describe('parseBedrockResponse', () => {
  it('turns the recorded Converse answer into a chat.completion with exact usage', () => {
    const body = new Uint8Array(fixtureBytes('bedrock', 'converse.nonstream.text.response.json'));
    const completion = parseBedrockResponse(body, context);
    expect(completion).toEqual({
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'test/model',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content:
              'Let me count the "r"s in "strawberry":\n\ns-t-**r**-a-w-b-e-**r**-**r**-y\n\nThere are **3** "r"s in "strawberry."',
          },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 22, completion_tokens: 57, total_tokens: 79 },
    });
  });

  it('returns tool calls, reasoning and tool_calls finish reason', () => {
    const completion = parseBedrockResponse(
      encode({
        output: {
          message: {
            role: 'assistant',
            content: [
              { reasoningContent: { reasoningText: { text: 'Need the weather.', signature: 'sig' } } },
              { toolUse: { toolUseId: 'tooluse_1', name: 'get_temperature', input: { city: 'Paris' } } },
            ],
          },
        },
        stopReason: 'tool_use',
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      }),
      context,
    );
    expect(completion.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        reasoning: 'Need the weather.',
        tool_calls: [
          { id: 'tooluse_1', type: 'function', function: { name: 'get_temperature', arguments: '{"city":"Paris"}' } },
        ],
      },
      finish_reason: 'tool_calls',
      logprobs: null,
    });
  });

  it('turns the forced JSON tool into message content that finishes with stop', () => {
    const completion = parseBedrockResponse(
      encode({
        output: {
          message: { content: [{ toolUse: { toolUseId: 't', name: JSON_MODE_TOOL_NAME, input: { city: 'Paris' } } }] },
        },
        stopReason: 'tool_use',
      }),
      context,
    );
    expect(completion.choices[0]?.message).toEqual({ role: 'assistant', content: '{"city":"Paris"}' });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
  });

  it.each([
    ['not json', 'oops'],
    ['no content', { output: {} }],
  ])('a body with %s is a 502', (_name, body) => {
    expect(() => parseBedrockResponse(encode(body), context)).toThrow(UpstreamError);
  });
});

describe('convertBedrockUsage', () => {
  it.each([
    [
      { inputTokens: 13, outputTokens: 82, totalTokens: 95 },
      { prompt_tokens: 13, completion_tokens: 82, total_tokens: 95 },
    ],
    [
      { inputTokens: 5, outputTokens: 7, cacheReadInputTokens: 100, cacheWriteInputTokens: 20, totalTokens: 132 },
      {
        prompt_tokens: 125,
        completion_tokens: 7,
        total_tokens: 132,
        prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 20 },
      },
    ],
    [{}, { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }],
  ])('%j → %j', (usage, expected) => {
    expect(convertBedrockUsage(usage)).toEqual(expected);
  });
});

describe('mapBedrockStopReason', () => {
  it.each([
    ['end_turn', false, 'stop'],
    ['stop_sequence', false, 'stop'],
    ['max_tokens', false, 'length'],
    ['model_context_window_exceeded', false, 'length'],
    ['tool_use', false, 'tool_calls'],
    ['tool_use', true, 'stop'],
    ['content_filtered', false, 'content_filter'],
    ['guardrail_intervened', false, 'content_filter'],
    [undefined, false, 'stop'],
  ])('%s (json mode %s) → %s', (reason, jsonMode, expected) => {
    expect(mapBedrockStopReason(reason, jsonMode)).toBe(expected);
  });
});

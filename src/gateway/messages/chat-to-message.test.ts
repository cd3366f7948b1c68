import { describe, expect, it } from 'vitest';
import { recordedCompletion } from '../../../test/helpers/chat-replay.js';
import type { ChatCompletion } from '../../shared/openai-types.js';
import { chatToMessage, messageStopReason, messageUsage } from './chat-to-message.js';

describe('chatToMessage on recorded chat answers', () => {
  it('parallel tool calls: tool_use blocks with parsed input, stop_reason tool_use, usage', () => {
    const completion = recordedCompletion('openai', 'chat.nonstream.parallel-tool-calls.response.json');
    expect(chatToMessage(completion, 'msg_1')).toMatchInlineSnapshot(`
      {
        "content": [
          {
            "id": "call_fdNz3vOBKYgOIpMdWotB9MjY",
            "input": {
              "city": "Edinburgh",
              "country": "GB",
              "units": "c",
            },
            "name": "GetWeatherArgs",
            "type": "tool_use",
          },
          {
            "id": "call_h1DWI1POMJLb0KwIyQHWXD4p",
            "input": {
              "exchange": "NASDAQ",
              "ticker": "AAPL",
            },
            "name": "get_stock_price",
            "type": "tool_use",
          },
        ],
        "id": "msg_1",
        "model": "public/model",
        "role": "assistant",
        "stop_reason": "tool_use",
        "stop_sequence": null,
        "type": "message",
        "usage": {
          "input_tokens": 149,
          "output_tokens": 60,
        },
      }
    `);
  });

  it('reasoning (DeepSeek reasoning_content) becomes a thinking block before the text', () => {
    const message = chatToMessage(recordedCompletion('deepseek', 'chat.nonstream.reasoning.response.json'), 'msg_1');
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(message.content[0]).toMatchObject({ thinking: expect.stringMatching(/^We are asked/), signature: '' });
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchInlineSnapshot(`
      {
        "cache_read_input_tokens": 0,
        "input_tokens": 18,
        "output_tokens": 345,
      }
    `);
  });

  it('a text answer: one text block, the model named by the answer', () => {
    const completion = recordedCompletion('openai', 'chat.nonstream.text.response.json');
    const message = chatToMessage(completion, 'msg_1');
    expect(message.content).toEqual([{ type: 'text', text: completion.choices[0]!.message.content }]);
    expect(message.model).toBe(completion.model);
  });
});

describe('chatToMessage', () => {
  const answer = (
    message: Partial<ChatCompletion['choices'][0]['message']>,
    finish: string | null,
  ): ChatCompletion => ({
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'upstream',
    choices: [{ index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason: finish }],
  });

  it.each([
    ['', {}],
    ['  ', {}],
    ['{"a":1}', { a: 1 }],
    ['{"a":', { _raw: '{"a":' }],
  ])('tool arguments %j → input %j', (text, input) => {
    const message = chatToMessage(
      answer(
        { tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: text } }] },
        'tool_calls',
      ),
      'msg_1',
    );
    expect(message.content).toEqual([{ type: 'tool_use', id: 'call_1', name: 'f', input }]);
  });

  it('an empty answer has no blocks and ends the turn; a missing finish_reason counts as stop', () => {
    const message = chatToMessage(answer({ content: '' }, null), 'msg_1');
    expect(message.content).toEqual([]);
    expect(message.stop_reason).toBe('end_turn');
  });
});

describe('messageStopReason', () => {
  it.each([
    ['stop', false, 'end_turn'],
    ['stop', true, 'stop_sequence'],
    ['length', false, 'max_tokens'],
    ['tool_calls', false, 'tool_use'],
    ['function_call', false, 'tool_use'],
    ['content_filter', false, 'refusal'],
    [null, false, null],
    [undefined, false, null],
  ])('%s (stopped %s) → %s', (finish, stopped, reason) => {
    expect(messageStopReason(finish, stopped)).toBe(reason);
  });
});

describe('messageUsage', () => {
  // Chat's prompt_tokens counts cached input in (map-anthropic-usage.ts adds it); Anthropic's
  // input_tokens leaves it out, so a client adding the three must get prompt_tokens back.
  it('cache reads and writes become cache_read/cache_creation_input_tokens, out of input_tokens; cost carries over', () => {
    expect(
      messageUsage({
        prompt_tokens: 100,
        completion_tokens: 20,
        total_tokens: 120,
        prompt_tokens_details: { cached_tokens: 80, cache_write_tokens: 10 },
        cost: 0.0012,
        cost_details: { upstream_inference_cost: 0.001 },
      }),
    ).toMatchInlineSnapshot(`
      {
        "cache_creation_input_tokens": 10,
        "cache_read_input_tokens": 80,
        "cost": 0.0012,
        "cost_details": {
          "upstream_inference_cost": 0.001,
        },
        "input_tokens": 10,
        "output_tokens": 20,
      }
    `);
  });

  it('no usage → zeros and no cache fields', () => {
    expect(messageUsage(null)).toEqual({ input_tokens: 0, output_tokens: 0 });
  });
});

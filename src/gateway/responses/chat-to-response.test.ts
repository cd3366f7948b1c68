import { describe, expect, it } from 'vitest';
import { recordedCompletion } from '../../../test/helpers/chat-replay.js';
import type { ChatCompletion } from '../../shared/openai-types.js';
import { assistantTurnOf, chatToResponse, responseUsage, type ResponseMeta } from './chat-to-response.js';
import type { NamespaceMap } from './namespace-tools.js';

function meta(overrides: Partial<ResponseMeta> = {}): ResponseMeta {
  let counter = 0;
  return {
    id: 'resp_1',
    createdAt: 1_700_000_000,
    model: 'public/model',
    request: { model: 'public/model', input: 'Hi' },
    store: true,
    itemId: (prefix) => `${prefix}${++counter}`,
    ...overrides,
  };
}

describe('chatToResponse on recorded chat answers', () => {
  it('a text answer: one completed message item, output_text, usage in Responses terms', () => {
    const completion = recordedCompletion('openai', 'chat.nonstream.text.response.json');
    const response = chatToResponse(completion, meta());
    const text = completion.choices[0]!.message.content!;
    expect(response.output_text).toBe(text);
    // The long recorded text is checked above; the snapshot shows the shape around it.
    expect(JSON.parse(JSON.stringify(response).replaceAll(JSON.stringify(text), '"<text>"'))).toMatchInlineSnapshot(`
      {
        "completed_at": 1700000000,
        "created_at": 1700000000,
        "error": null,
        "id": "resp_1",
        "incomplete_details": null,
        "instructions": null,
        "max_output_tokens": null,
        "metadata": {},
        "model": "public/model",
        "object": "response",
        "output": [
          {
            "content": [
              {
                "annotations": [],
                "logprobs": [],
                "text": "<text>",
                "type": "output_text",
              },
            ],
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "type": "message",
          },
        ],
        "output_text": "<text>",
        "parallel_tool_calls": true,
        "previous_response_id": null,
        "reasoning": {
          "effort": null,
          "summary": null,
        },
        "status": "completed",
        "store": true,
        "temperature": 1,
        "text": {
          "format": {
            "type": "text",
          },
        },
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1,
        "truncation": "disabled",
        "usage": {
          "input_tokens": 16,
          "input_tokens_details": {
            "cache_write_tokens": 0,
            "cached_tokens": 0,
          },
          "output_tokens": 363,
          "output_tokens_details": {
            "reasoning_tokens": 0,
          },
          "total_tokens": 379,
        },
      }
    `);
  });

  it('parallel tool calls: one function_call item each, no empty message, ids kept', () => {
    const completion = recordedCompletion('openai', 'chat.nonstream.parallel-tool-calls.response.json');
    const response = chatToResponse(completion, meta());
    expect(response.output).toMatchInlineSnapshot(`
      [
        {
          "arguments": "{"city": "Edinburgh", "country": "GB", "units": "c"}",
          "call_id": "call_fdNz3vOBKYgOIpMdWotB9MjY",
          "id": "fc_1",
          "name": "GetWeatherArgs",
          "status": "completed",
          "type": "function_call",
        },
        {
          "arguments": "{"ticker": "AAPL", "exchange": "NASDAQ"}",
          "call_id": "call_h1DWI1POMJLb0KwIyQHWXD4p",
          "id": "fc_2",
          "name": "get_stock_price",
          "status": "completed",
          "type": "function_call",
        },
      ]
    `);
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('');
  });

  it('reasoning (DeepSeek reasoning_content) comes first as a reasoning item', () => {
    const response = chatToResponse(recordedCompletion('deepseek', 'chat.nonstream.reasoning.response.json'), meta());
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    const reasoning = response.output[0] as { content: Array<{ type: string; text: string }> };
    expect(reasoning.content[0]!.type).toBe('reasoning_text');
    expect(reasoning.content[0]!.text).toMatch(/^We are asked/);
    expect(response.output_text).toMatch(/three instances/);
    expect(response.usage?.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
  });
});

describe('chatToResponse', () => {
  const answer = (message: Partial<ChatCompletion['choices'][0]['message']>, finish = 'stop'): ChatCompletion => ({
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'upstream',
    choices: [{ index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason: finish }],
  });

  it('a call of a flattened namespace tool is given back split into namespace and name', () => {
    const namespaces: NamespaceMap = new Map([
      ['multi_agent_v1__spawn_agent', { namespace: 'multi_agent_v1', name: 'spawn_agent' }],
    ]);
    const completion = answer(
      {
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'multi_agent_v1__spawn_agent', arguments: '{}' } },
          { id: 'call_2', type: 'function', function: { name: 'exec_command', arguments: '{"cmd":"ls"}' } },
        ],
      },
      'tool_calls',
    );
    const response = chatToResponse(completion, meta({ namespaces }));
    expect(response.output).toMatchObject([
      { type: 'function_call', call_id: 'call_1', namespace: 'multi_agent_v1', name: 'spawn_agent' },
      { type: 'function_call', call_id: 'call_2', name: 'exec_command' },
    ]);
    expect(response.output[1]).not.toHaveProperty('namespace');
    // The stored turn replays under the flat name the model was offered.
    expect(assistantTurnOf(response.output)?.tool_calls?.map((call) => call.function.name)).toEqual([
      'multi_agent_v1__spawn_agent',
      'exec_command',
    ]);
  });

  it.each([
    ['length', 'incomplete', { reason: 'max_output_tokens' }],
    ['content_filter', 'incomplete', { reason: 'content_filter' }],
    ['stop', 'completed', null],
    ['tool_calls', 'completed', null],
  ])('finish_reason %s → status %s', (finish, status, details) => {
    const response = chatToResponse(answer({ content: 'x' }, finish), meta());
    expect(response.status).toBe(status);
    expect(response.incomplete_details).toEqual(details);
  });

  it('an empty answer still has one (empty) message, so clients find output_text', () => {
    const response = chatToResponse(answer({ content: null }), meta());
    expect(response.output).toEqual([
      expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: '' })] }),
    ]);
    expect(assistantTurnOf(response.output)).toBeNull();
  });

  it('the request settings are echoed; function tools in full, other tools as sent', () => {
    const response = chatToResponse(
      answer({ content: 'ok' }),
      meta({
        request: {
          model: 'public/model',
          instructions: 'Be brief.',
          max_output_tokens: 10,
          reasoning: { effort: 'low' },
          tools: [{ type: 'function', name: 'f' }, { type: 'web_search' }],
          previous_response_id: 'resp_0',
          user: 'u1',
          metadata: { a: 'b' },
        },
        store: false,
      }),
    );
    const { output: _output, ...envelope } = response;
    expect(envelope).toMatchInlineSnapshot(`
      {
        "completed_at": 1700000000,
        "created_at": 1700000000,
        "error": null,
        "id": "resp_1",
        "incomplete_details": null,
        "instructions": "Be brief.",
        "max_output_tokens": 10,
        "metadata": {
          "a": "b",
        },
        "model": "public/model",
        "object": "response",
        "output_text": "ok",
        "parallel_tool_calls": true,
        "previous_response_id": "resp_0",
        "reasoning": {
          "effort": "low",
          "summary": null,
        },
        "status": "completed",
        "store": false,
        "temperature": 1,
        "text": {
          "format": {
            "type": "text",
          },
        },
        "tool_choice": "auto",
        "tools": [
          {
            "description": null,
            "name": "f",
            "parameters": null,
            "strict": null,
            "type": "function",
          },
          {
            "type": "web_search",
          },
        ],
        "top_p": 1,
        "truncation": "disabled",
        "user": "u1",
      }
    `);
  });
});

describe('responseUsage', () => {
  it('cached and cache-write tokens, reasoning tokens and the cost fields carry over', () => {
    expect(
      responseUsage({
        prompt_tokens: 100,
        completion_tokens: 20,
        total_tokens: 120,
        prompt_tokens_details: { cached_tokens: 80, cache_write_tokens: 10 },
        completion_tokens_details: { reasoning_tokens: 5 },
        cost: 0.0012,
        cost_details: { upstream_inference_cost: 0.001 },
      }),
    ).toMatchInlineSnapshot(`
      {
        "cost": 0.0012,
        "cost_details": {
          "upstream_inference_cost": 0.001,
        },
        "input_tokens": 100,
        "input_tokens_details": {
          "cache_write_tokens": 10,
          "cached_tokens": 80,
        },
        "output_tokens": 20,
        "output_tokens_details": {
          "reasoning_tokens": 5,
        },
        "total_tokens": 120,
      }
    `);
  });

  it('no usage → null; missing details → zeros, no cost fields', () => {
    expect(responseUsage(null)).toBeNull();
    expect(responseUsage({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 })).toEqual({
      input_tokens: 1,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: 2,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 3,
    });
  });
});

import { describe, expect, it } from 'vitest';
import { fixtureBytes } from '../../../test/helpers/fixtures.js';
import { testContext } from '../../../test/helpers/translation-context.js';
import { parseAnthropicResponse } from './parse-anthropic-response.js';

const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

describe('parseAnthropicResponse', () => {
  it.each([
    [
      'messages.nonstream.text.response.json',
      {
        content:
          "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?",
      },
      'stop',
      {
        prompt_tokens: 12,
        completion_tokens: 29,
        total_tokens: 41,
        prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      },
    ],
    [
      'messages.nonstream.tool-use.response.json',
      {
        content: null,
        tool_calls: [
          {
            id: 'toolu_01PQjhxo3eirCdKNvCJrKc8f',
            type: 'function',
            function: { name: 'weather', arguments: '{"location":"San Francisco"}' },
          },
        ],
      },
      'tool_calls',
      { prompt_tokens: 843, completion_tokens: 28, total_tokens: 871 },
    ],
    [
      'messages.nonstream.text-and-tool-use.response.json',
      {
        content: expect.stringMatching(
          /^<thinking>\nThe updateIssueList tool.*Okay, I will update the current issue list:$/s,
        ),
        tool_calls: [
          {
            id: 'toolu_01LRmxn9vGM1d2DZSDBowdZ1',
            type: 'function',
            function: { name: 'updateIssueList', arguments: '{}' },
          },
        ],
      },
      'tool_calls',
      { prompt_tokens: 602, completion_tokens: 93, total_tokens: 695 },
    ],
  ])('%s', (fixture, message, finishReason, usage) => {
    const completion = parseAnthropicResponse(fixtureBytes('anthropic', fixture), testContext());
    expect(completion).toMatchObject({
      id: 'chatcmpl-test',
      object: 'chat.completion',
      model: 'public/model',
      created: 1_700_000_000,
    });
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0].message).toMatchObject({ role: 'assistant', ...message });
    expect(completion.choices[0].finish_reason).toBe(finishReason);
    expect(completion.usage).toMatchObject(usage);
  });

  it('adds cache reads and writes to prompt_tokens and reports them apart', () => {
    const completion = parseAnthropicResponse(
      encode({
        content: [{ type: 'text', text: 'ok' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 10, cache_read_input_tokens: 1000, cache_creation_input_tokens: 200, output_tokens: 5 },
      }),
      testContext(),
    );
    expect(completion.usage).toEqual({
      prompt_tokens: 1210,
      completion_tokens: 5,
      total_tokens: 1215,
      prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 200 },
    });
  });

  it('returns the JSON-answer tool input as content with finish_reason stop', () => {
    const completion = parseAnthropicResponse(
      encode({
        content: [{ type: 'tool_use', id: 't', name: 'json_response', input: { answer: 2 } }],
        stop_reason: 'tool_use',
        usage: { input_tokens: 1, output_tokens: 1 },
      }),
      testContext(),
      'json_response',
    );
    expect(completion.choices[0].message.content).toBe('{"answer":2}');
    expect(completion.choices[0].message.tool_calls).toBeUndefined();
    expect(completion.choices[0].finish_reason).toBe('stop');
  });

  it('keeps web search inside: thinking to reasoning, citations to annotations, searches counted', () => {
    const completion = parseAnthropicResponse(
      encode({
        content: [
          { type: 'thinking', thinking: 'Search first.', signature: 'sig' },
          { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'weather' } },
          { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
          { type: 'text', text: 'It is ' },
          {
            type: 'text',
            text: 'sunny.',
            citations: [
              { type: 'web_search_result_location', url: 'https://w.example', title: 'W', cited_text: 'sun' },
            ],
          },
        ],
        stop_reason: 'end_turn',
        usage: { input_tokens: 5, output_tokens: 6, server_tool_use: { web_search_requests: 1 } },
      }),
      testContext(),
    );
    const message = completion.choices[0].message;
    expect(message.content).toBe('It is sunny.');
    expect(message.reasoning).toBe('Search first.');
    expect(message.tool_calls).toBeUndefined();
    expect(message.annotations).toEqual([
      { type: 'url_citation', url_citation: { url: 'https://w.example', title: 'W', start_index: 6, end_index: 12 } },
    ]);
    expect(completion.usage?.web_search_requests).toBe(1);
  });

  it.each([
    ['max_tokens', 'length'],
    ['stop_sequence', 'stop'],
    ['refusal', 'content_filter'],
    ['pause_turn', 'stop'],
  ])('stop_reason %s → finish_reason %s', (stopReason, finishReason) => {
    const completion = parseAnthropicResponse(
      encode({ content: [{ type: 'text', text: 'x' }], stop_reason: stopReason, usage: {} }),
      testContext(),
    );
    expect(completion.choices[0].finish_reason).toBe(finishReason);
  });

  it.each([
    ['not JSON', new TextEncoder().encode('<html>')],
    ['no content array', encode({ type: 'message' })],
  ])('a body that is %s is a 502', (_name, body) => {
    expect(() => parseAnthropicResponse(body, testContext())).toThrow(
      expect.objectContaining({ status: 502, code: 'upstream_bad_response' }),
    );
  });
});

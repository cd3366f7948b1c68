import { describe, expect, it } from 'vitest';
import type { ChatCompletionRequest } from '../../shared/openai-types.js';
import { GatewayError } from '../../shared/errors.js';
import { fixtureJson } from '../../../test/helpers/fixtures.js';
import { convertToAnthropicRequest, DEFAULT_ANTHROPIC_MAX_TOKENS } from './convert-to-anthropic-request.js';

const options = { upstreamModel: 'claude-test', providerName: 'Anthropic' };
const convert = (request: Partial<ChatCompletionRequest>, extra = {}) =>
  convertToAnthropicRequest(
    { model: 'public/claude', messages: [{ role: 'user', content: 'Hi' }], ...request } as ChatCompletionRequest,
    { ...options, ...extra },
  );

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
};

describe('convertToAnthropicRequest', () => {
  it('gives the recorded body of messages.stream.text-short for the same OpenAI request', () => {
    const recorded = fixtureJson('anthropic', 'messages.stream.text-short.request.json');
    const { body } = convertToAnthropicRequest(
      {
        model: 'x',
        stream: true,
        max_tokens: 32000,
        messages: [{ role: 'user', content: 'What is 1+1? Answer with just the number.' }],
      },
      { ...options, upstreamModel: 'claude-sonnet-4-5' },
    );
    expect(body).toEqual(recorded);
  });

  it('gives the recorded body of messages.stream.thinking when the client passes Anthropic thinking', () => {
    const recorded = fixtureJson('anthropic', 'messages.stream.thinking.request.json');
    const { body } = convertToAnthropicRequest(
      {
        model: 'x',
        stream: true,
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: [{ type: 'text', text: 'How do I cross the street?' }] }],
      },
      { ...options, upstreamModel: 'claude-sonnet-4-0' },
    );
    expect(body).toEqual(recorded);
  });

  it.each([
    ['no max_tokens: the default', {}, {}, DEFAULT_ANTHROPIC_MAX_TOKENS],
    ['no max_tokens: the provider option', {}, { defaultMaxTokens: 1000 }, 1000],
    ['max_tokens', { max_tokens: 77 }, {}, 77],
    ['max_completion_tokens wins', { max_tokens: 77, max_completion_tokens: 88 }, {}, 88],
  ])('max_tokens with %s', (_name, request, extra, expected) => {
    expect(convert(request, extra).body.max_tokens).toBe(expected);
  });

  it.each([
    [0.5, 0.5, 0],
    [1, 1, 0],
    [1.7, 1, 1],
    [2, 1, 1],
  ])('temperature %s becomes %s (%s warnings): Anthropic tops out at 1', (given, sent, warningCount) => {
    const { body, warnings } = convert({ temperature: given, top_p: 0.9 });
    expect(body.temperature).toBe(sent);
    expect(body.top_p).toBe(0.9);
    expect(warnings).toHaveLength(warningCount);
  });

  it('moves system and developer messages to system blocks, keeps order, merges tool results into one user turn', () => {
    const { body } = convert({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris and Rome?' },
        { role: 'developer', content: [{ type: 'text', text: 'Use tools.' }] },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call.2', type: 'function', function: { name: 'get_weather', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'Sunny' },
        { role: 'tool', tool_call_id: 'call.2', content: [{ type: 'text', text: 'Rainy' }] },
        { role: 'user', content: 'Thanks' },
      ],
    });
    expect(body.system).toEqual([
      { type: 'text', text: 'Be brief.' },
      { type: 'text', text: 'Use tools.' },
    ]);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'call_2', name: 'get_weather', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny' },
          { type: 'tool_result', tool_use_id: 'call_2', content: [{ type: 'text', text: 'Rainy' }] },
          { type: 'text', text: 'Thanks' },
        ],
      },
    ]);
  });

  it('turns images (data URL and https) and PDFs into Anthropic blocks', () => {
    const { body } = convert({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=' } },
          ],
        },
        { role: 'assistant', content: 'A cat.' },
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } }] },
      ],
    });
    expect(body.messages[0].content).toEqual([
      { type: 'text', text: 'Compare' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } },
    ]);
    expect(body.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
  });

  it.each([
    ['auto', { tool_choice: 'auto' }, { type: 'auto' }],
    ['required', { tool_choice: 'required' }, { type: 'any' }],
    ['none', { tool_choice: 'none' }, { type: 'none' }],
    [
      'a named function',
      { tool_choice: { type: 'function', function: { name: 'get_weather' } } },
      { type: 'tool', name: 'get_weather' },
    ],
    ['parallel_tool_calls false', { parallel_tool_calls: false }, { type: 'auto', disable_parallel_tool_use: true }],
    [
      'required, not parallel',
      { tool_choice: 'required', parallel_tool_calls: false },
      { type: 'any', disable_parallel_tool_use: true },
    ],
    ['nothing', {}, undefined],
  ])('tool_choice %s', (_name, request, expected) => {
    const { body } = convert({ tools: [weatherTool], ...request } as Partial<ChatCompletionRequest>);
    expect(body.tools).toEqual([
      { name: 'get_weather', description: 'Weather', input_schema: weatherTool.function.parameters },
    ]);
    expect(body.tool_choice).toEqual(expected);
  });

  it('answers json_object through a forced tool', () => {
    const { body, jsonToolName } = convert({ response_format: { type: 'json_object' } });
    expect(jsonToolName).toBe('json_response');
    expect(body.tools).toEqual([expect.objectContaining({ name: 'json_response', input_schema: { type: 'object' } })]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'json_response' });
  });

  it('answers json_schema through a forced tool named after the schema, offered beside client tools without forcing', () => {
    const schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] };
    const alone = convert({ response_format: { type: 'json_schema', json_schema: { name: 'math answer', schema } } });
    expect(alone.jsonToolName).toBe('math_answer');
    expect(alone.body.tools).toEqual([expect.objectContaining({ name: 'math_answer', input_schema: schema })]);
    expect(alone.body.tool_choice).toEqual({ type: 'tool', name: 'math_answer' });
    const withTools = convert({
      tools: [weatherTool],
      response_format: { type: 'json_schema', json_schema: { name: 'get_weather', schema } },
    });
    expect(withTools.jsonToolName).toBe('json_response');
    expect(withTools.body.tools?.map((tool) => tool.name)).toEqual(['get_weather', 'json_response']);
    expect(withTools.body.tool_choice).toBeUndefined();
  });

  it('adds the web search tool for enable_search, with max_uses from the provider options', () => {
    expect(convert({ enable_search: true }).body.tools).toEqual([{ type: 'web_search_20250305', name: 'web_search' }]);
    expect(convert({ enable_search: true }, { webSearchMaxUses: 3 }).body.tools).toEqual([
      { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
    ]);
  });

  it('maps stop, user and reasoning_effort; warns about what Anthropic cannot do', () => {
    const { body, warnings } = convert({
      stop: 'END',
      user: 'user-7',
      reasoning_effort: 'low',
      max_tokens: 3000,
      frequency_penalty: 0.5,
      seed: 3,
    });
    expect(body.stop_sequences).toEqual(['END']);
    expect(body.metadata).toEqual({ user_id: 'user-7' });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(warnings).toEqual([
      'frequency_penalty is not supported by Anthropic and was ignored',
      'seed is not supported by Anthropic and was ignored',
    ]);
    expect(convert({ reasoning_effort: 'high', max_tokens: 5000 }).body.thinking).toEqual({
      type: 'enabled',
      budget_tokens: 4999,
    });
  });

  it.each([
    [
      'tool arguments that are not JSON',
      {
        messages: [
          {
            role: 'assistant',
            tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{oops' } }],
          },
        ],
      },
      'messages[0].tool_calls[0].function.arguments',
    ],
    [
      'audio input',
      { messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AA', format: 'wav' } }] }] },
      'messages[0].content[0].type',
    ],
    [
      'an image that is neither https nor data',
      { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://x/y.png' } }] }] },
      'messages[0].content[0].image_url.url',
    ],
    ['only a system message', { messages: [{ role: 'system', content: 'Be brief.' }] }, 'messages'],
    ['reasoning_effort with too small max_tokens', { reasoning_effort: 'low', max_tokens: 500 }, 'max_tokens'],
  ])('refuses %s with a 400 naming the parameter', (_name, request, param) => {
    try {
      convert(request as Partial<ChatCompletionRequest>);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).status).toBe(400);
      expect((error as GatewayError).param).toBe(param);
    }
  });
});

import { describe, expect, it } from 'vitest';
import type { ChatCompletionRequest } from '../../shared/openai-types.js';
import { InvalidRequestError } from '../../shared/errors.js';
import { fixtureJson } from '../../../test/helpers/fixtures.js';
import { convertToBedrockRequest, JSON_MODE_TOOL_NAME } from './convert-to-bedrock-request.js';

const fixture = (name: string) => fixtureJson<unknown>('bedrock', name);
const NOVA = 'us.amazon.nova-micro-v1:0';
const CLAUDE = 'us.anthropic.claude-sonnet-4-20250514-v1:0';

const weatherTools = [
  {
    type: 'function' as const,
    function: {
      name: 'get_capital',
      description: 'Get the capital of a country.',
      parameters: {
        properties: { country: { description: 'The country name.', title: 'Country', type: 'string' } },
        required: ['country'],
        type: 'object',
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function' as const,
    function: {
      name: 'get_temperature',
      description: 'Get the temperature in a city.',
      parameters: {
        properties: { city: { description: 'The city name.', title: 'City', type: 'string' } },
        required: ['city'],
        type: 'object',
        additionalProperties: false,
      },
    },
  },
];

describe('convertToBedrockRequest', () => {
  // The recorded requests were made by another client; the same intent in OpenAI form must give the same body.
  it.each([
    [
      'text with system prompt',
      {
        model: 'x',
        messages: [
          { role: 'system', content: 'You are a helpful chatbot.' },
          { role: 'user', content: 'What is the capital of France?' },
        ],
        temperature: 0,
      },
      NOVA,
      'converse-stream.text.request.json',
    ],
    [
      'tools with top_p',
      {
        model: 'x',
        messages: [
          { role: 'system', content: 'You are a helpful chatbot.' },
          { role: 'user', content: 'What is the temperature of the capital of France?' },
        ],
        top_p: 0.5,
        tools: weatherTools,
      },
      NOVA,
      'converse-stream.tool-use.request.json',
    ],
  ])('%s matches the recorded Converse request', (_name, request, model, file) => {
    const { body, warnings } = convertToBedrockRequest(request as ChatCompletionRequest, model);
    expect(body).toEqual(fixture(file));
    expect(warnings).toEqual([]);
  });

  it('maps reasoning_effort to Claude extended thinking (the recorded reasoning request, with max tokens made explicit)', () => {
    const { body } = convertToBedrockRequest(
      { model: 'x', messages: [{ role: 'user', content: 'Hello' }], reasoning_effort: 'low' },
      CLAUDE,
    );
    const recorded = fixture('converse-stream.reasoning.request.json') as Record<string, unknown>;
    expect(body.messages).toEqual(recorded.messages);
    expect(body.additionalModelRequestFields).toEqual(recorded.additionalModelRequestFields);
    expect(body.inferenceConfig).toEqual({ maxTokens: 1024 + 4096 });
  });

  it.each([
    ['max_completion_tokens wins over max_tokens', { max_tokens: 10, max_completion_tokens: 20 }, { maxTokens: 20 }],
    ['stop as a string', { stop: 'END' }, { stopSequences: ['END'] }],
    ['stop as a list', { stop: ['a', 'b'] }, { stopSequences: ['a', 'b'] }],
    ['temperature and top_p', { temperature: 0.7, top_p: 0.9 }, { temperature: 0.7, topP: 0.9 }],
  ])('inference config: %s', (_name, extra, expected) => {
    const { body } = convertToBedrockRequest(
      { model: 'x', messages: [{ role: 'user', content: 'hi' }], ...extra },
      NOVA,
    );
    expect(body.inferenceConfig).toEqual(expected);
  });

  it('turns a multi-turn tool conversation into alternating Converse turns', () => {
    const { body } = convertToBedrockRequest(
      {
        model: 'x',
        tools: weatherTools,
        tool_choice: 'required',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Weather?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0=' } },
            ],
          },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'get_temperature', arguments: '{"city":"Paris"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '21C' },
          { role: 'user', content: 'And tomorrow?' },
        ],
      },
      NOVA,
    );
    expect(body.messages).toEqual([
      { role: 'user', content: [{ text: 'Weather?' }, { image: { format: 'png', source: { bytes: 'iVBORw0=' } } }] },
      {
        role: 'assistant',
        content: [{ toolUse: { toolUseId: 'call_1', name: 'get_temperature', input: { city: 'Paris' } } }],
      },
      {
        role: 'user',
        content: [{ toolResult: { toolUseId: 'call_1', content: [{ text: '21C' }] } }, { text: 'And tomorrow?' }],
      },
    ]);
    expect(body.toolConfig?.toolChoice).toEqual({ any: {} });
  });

  it.each([
    ['auto', 'auto', undefined],
    ['a named function', { type: 'function', function: { name: 'get_capital' } }, { tool: { name: 'get_capital' } }],
  ])('tool_choice %s', (_name, choice, expected) => {
    const { body } = convertToBedrockRequest(
      { model: 'x', messages: [{ role: 'user', content: 'hi' }], tools: weatherTools, tool_choice: choice as never },
      NOVA,
    );
    expect(body.toolConfig?.toolChoice).toEqual(expected);
  });

  it("tool_choice 'none' without tool history sends no tools", () => {
    const { body, warnings } = convertToBedrockRequest(
      { model: 'x', messages: [{ role: 'user', content: 'hi' }], tools: weatherTools, tool_choice: 'none' },
      NOVA,
    );
    expect(body.toolConfig).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('declares tools used in the history when the request lists none, since Converse requires it', () => {
    const { body } = convertToBedrockRequest(
      {
        model: 'x',
        messages: [
          { role: 'user', content: 'hi' },
          {
            role: 'assistant',
            content: '',
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'lookup', arguments: '' } }],
          },
          { role: 'tool', tool_call_id: 'c', content: 'ok' },
        ],
      },
      NOVA,
    );
    expect(body.toolConfig).toEqual({
      tools: [{ toolSpec: { name: 'lookup', inputSchema: { json: { type: 'object' } } } }],
    });
    expect(body.messages[1]).toEqual({
      role: 'assistant',
      content: [{ toolUse: { toolUseId: 'c', name: 'lookup', input: {} } }],
    });
  });

  it('JSON mode forces the gateway tool with the client schema', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } } };
    const { body, jsonMode } = convertToBedrockRequest(
      {
        model: 'x',
        messages: [{ role: 'user', content: 'hi' }],
        response_format: { type: 'json_schema', json_schema: { name: 'city', schema } },
      },
      NOVA,
    );
    expect(jsonMode).toBe(true);
    expect(body.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: JSON_MODE_TOOL_NAME,
            description: 'Respond with the answer as JSON matching this schema.',
            inputSchema: { json: schema },
          },
        },
      ],
      toolChoice: { tool: { name: JSON_MODE_TOOL_NAME } },
    });
  });

  it('warns about parameters it drops and keeps the rest', () => {
    const { warnings } = convertToBedrockRequest(
      {
        model: 'x',
        messages: [{ role: 'user', content: 'hi' }],
        seed: 1,
        frequency_penalty: 0,
        presence_penalty: 0.5,
        logprobs: true,
        custom_thing: 1,
      },
      NOVA,
    );
    expect(warnings).toEqual([
      'presence_penalty is not supported by Amazon Bedrock and was ignored',
      'seed is not supported by Amazon Bedrock and was ignored',
      'logprobs is not supported by Amazon Bedrock and was ignored',
      'custom_thing is not supported by Amazon Bedrock and was ignored',
    ]);
  });

  it('ignores reasoning_effort for non-Claude models with a warning', () => {
    const { body, warnings } = convertToBedrockRequest(
      { model: 'x', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'high' },
      NOVA,
    );
    expect(body.additionalModelRequestFields).toBeUndefined();
    expect(warnings[0]).toMatch(/reasoning_effort/);
  });

  it.each([
    ['enable_search', { enable_search: true }, 'enable_search'],
    [
      'a remote image URL',
      { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }] },
      'messages[0].content[0].image_url.url',
    ],
    [
      'audio input',
      { messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }] }] },
      'messages[0].content[0].input_audio',
    ],
    [
      'bad tool-call arguments',
      {
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{' } }],
          },
        ],
      },
      'messages[0].tool_calls[0].function.arguments',
    ],
    [
      'JSON mode together with tools',
      { tools: weatherTools, response_format: { type: 'json_object' } },
      'response_format',
    ],
    [
      'a tool named like the JSON tool',
      { tools: [{ type: 'function', function: { name: JSON_MODE_TOOL_NAME } }] },
      'tools[0].function.name',
    ],
  ])('refuses %s with a 400 naming the param', (_name, extra, param) => {
    const request = { model: 'x', messages: [{ role: 'user', content: 'hi' }], ...extra } as ChatCompletionRequest;
    try {
      convertToBedrockRequest(request, NOVA);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect((error as InvalidRequestError).param).toBe(param);
    }
  });

  it('sends a PDF file part as a Converse document with a cleaned name', () => {
    const { body } = convertToBedrockRequest(
      {
        model: 'x',
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'file',
                file: { filename: 'report_v2.final.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' },
              },
            ],
          },
        ],
      },
      NOVA,
    );
    expect(body.messages[0]?.content[0]).toEqual({
      document: { format: 'pdf', name: 'report v2 final', source: { bytes: 'JVBERi0=' } },
    });
  });
});

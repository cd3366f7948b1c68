import { describe, expect, it } from 'vitest';
import type { ChatCompletionRequest, ChatMessage } from '../../shared/openai-types.js';
import { GatewayError } from '../../shared/errors.js';
import { fixtureJson } from '../../../test/helpers/fixtures.js';
import { testContext, testProvider } from '../../../test/helpers/translation-context.js';
import { convertToGeminiRequest } from './convert-to-gemini-request.js';
import { geminiAdapter } from './gemini-adapter.js';
import { encodeGeminiToolCallId } from './gemini-tool-call-id.js';

const convert = (request: Partial<ChatCompletionRequest>) =>
  convertToGeminiRequest(
    { model: 'public/gemini', messages: [{ role: 'user', content: 'Hi' }], ...request } as ChatCompletionRequest,
    { providerName: 'Gemini' },
  );

const divideTool = {
  type: 'function' as const,
  function: {
    name: 'customDivide',
    description: 'Custom divide function',
    parameters: { properties: { denominator: { type: 'NUMBER' }, numerator: { type: 'NUMBER' } }, type: 'OBJECT' },
  },
};

describe('convertToGeminiRequest against recorded requests', () => {
  it('streamGenerateContent.sse.text: system prompt to systemInstruction, temperature to generationConfig', () => {
    const recorded = fixtureJson('gemini', 'streamGenerateContent.sse.text.request.json');
    const { body } = convert({
      temperature: 0,
      messages: [
        { role: 'system', content: 'You are a helpful chatbot.' },
        { role: 'user', content: 'What is the capital of France?' },
      ],
    });
    expect(body.contents).toEqual(recorded.contents);
    expect(body.generationConfig).toEqual(recorded.generationConfig);
    expect(body.systemInstruction?.parts).toEqual(recorded.systemInstruction.parts);
  });

  it.each(['js-genai.nonstream.text.request.json', 'js-genai.stream.max-tokens.request.json'])(
    '%s: n and max_tokens, at the recorded URL',
    (fixture) => {
      const recorded = fixtureJson('gemini', fixture);
      const stream = fixture.includes('.stream.');
      const request = {
        model: 'x',
        stream,
        n: 1,
        max_tokens: 200,
        messages: [{ role: 'user' as const, content: 'why is the sky blue?' }],
      };
      const { body } = convertToGeminiRequest(request, { providerName: 'Gemini' });
      expect(body.contents).toEqual(recorded.body.contents);
      // thinkingBudget 50 is a js-genai setting with no OpenAI parameter; the rest is what we send.
      const { thinkingConfig: _thinking, ...generationConfig } = recorded.body.generationConfig;
      expect(body.generationConfig).toEqual(generationConfig);
      const upstream = geminiAdapter.buildRequest(
        request,
        testContext({
          upstreamModel: 'gemini-2.5-flash',
          provider: testProvider({ baseUrl: 'https://generativelanguage.googleapis.com/v1beta' }),
        }),
      );
      expect(
        new URL((upstream as { url: string }).url).pathname + new URL((upstream as { url: string }).url).search,
      ).toBe(recorded.url);
    },
  );

  it('js-genai function calling turn 1 and turn 2: tools as functionDeclarations, an earlier call as a model functionCall', () => {
    const turn1 = fixtureJson('gemini', 'js-genai.stream.function-calling.turn1.request.json');
    const turn2 = fixtureJson('gemini', 'js-genai.stream.function-calling.turn2.request.json');
    const first = convert({
      tools: [divideTool],
      messages: [{ role: 'user', content: 'what is the result of 100/2' }],
    }).body;
    expect(first.contents).toEqual(turn1.body.contents);
    expect(first.tools).toEqual(turn1.body.tools);
    const second = convert({
      tools: [divideTool],
      messages: [
        { role: 'user', content: 'what is the result of 100/2' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'customDivide', arguments: '{"denominator":2,"numerator":100}' },
            },
          ],
        },
        { role: 'user', content: 'what is the result of 50/2?' },
      ],
    }).body;
    const withoutIds = JSON.parse(JSON.stringify(second.contents).replace(/"id":"call_1",/, ''));
    expect(withoutIds).toEqual(turn2.body.contents);
  });

  it('streamGenerateContent.sse.function-call turn 2: the thoughtSignature carried in the tool call id goes back with the call', () => {
    const recorded = fixtureJson('gemini', 'streamGenerateContent.sse.function-call.turn2.request.json');
    const recordedCall = recorded.contents[1].parts[0];
    const toolCallId = encodeGeminiToolCallId(recordedCall.functionCall.id, recordedCall.thoughtSignature);
    const messages: ChatMessage[] = [
      { role: 'user', content: 'What is the capital of the user country? Call the tool' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: toolCallId, type: 'function', function: { name: 'get_country', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: toolCallId, content: '{"return_value":"Mexico"}' },
    ];
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'get_country',
          description: '',
          parameters: { additionalProperties: false, properties: {}, type: 'object' },
        },
      },
    ];
    const { body } = convert({ messages, tools });
    const standardBase64 = (value: string) => Buffer.from(value, 'base64url').toString('base64');
    const sent = JSON.parse(JSON.stringify(body.contents));
    sent[1].parts[0].thoughtSignature = standardBase64(sent[1].parts[0].thoughtSignature);
    const expected = JSON.parse(JSON.stringify(recorded.contents));
    expected[1].parts[0].thoughtSignature = standardBase64(expected[1].parts[0].thoughtSignature);
    expect(sent).toEqual(expected);
    // A function without parameters is declared without them: Gemini refuses an OBJECT with no properties.
    expect(body.tools).toEqual([{ functionDeclarations: [{ name: 'get_country' }] }]);
    const turn1 = fixtureJson('gemini', 'streamGenerateContent.sse.function-call.turn1.request.json');
    expect(convert({ messages: messages.slice(0, 1), tools }).body.contents).toEqual(turn1.contents);
  });

  it('streamGenerateContent.sse.usage-every-chunk: a plain user turn', () => {
    const recorded = fixtureJson('gemini', 'streamGenerateContent.sse.usage-every-chunk.request.json');
    expect(
      convert({ messages: [{ role: 'user', content: 'Count from 1 to 30, one number per line, digits only.' }] }).body
        .contents,
    ).toEqual(recorded.contents);
  });
});

describe('convertToGeminiRequest', () => {
  it('maps the generation parameters', () => {
    const { body, warnings } = convert({
      temperature: 1.5,
      top_p: 0.8,
      top_k: 40,
      max_completion_tokens: 99,
      stop: ['END'],
      n: 2,
      presence_penalty: 0.1,
      frequency_penalty: 0.2,
      seed: 5,
      logit_bias: { 1: 1 },
    });
    expect(body.generationConfig).toEqual({
      temperature: 1.5,
      topP: 0.8,
      topK: 40,
      maxOutputTokens: 99,
      stopSequences: ['END'],
      candidateCount: 2,
      presencePenalty: 0.1,
      frequencyPenalty: 0.2,
      seed: 5,
    });
    expect(warnings).toEqual(['logit_bias is not supported by Gemini and was ignored']);
  });

  it.each([
    ['json_object', { type: 'json_object' }, { responseMimeType: 'application/json' }],
    [
      'json_schema',
      {
        type: 'json_schema',
        json_schema: {
          name: 'x',
          strict: true,
          schema: {
            type: 'object',
            additionalProperties: false,
            properties: { tags: { type: 'array', items: { type: ['string', 'null'] } } },
            required: ['tags'],
          },
        },
      },
      {
        responseMimeType: 'application/json',
        responseSchema: {
          type: 'object',
          properties: { tags: { type: 'array', items: { type: 'string', nullable: true } } },
          required: ['tags'],
        },
      },
    ],
  ])('response_format %s', (_name, responseFormat, expected) => {
    expect(
      convert({ response_format: responseFormat as ChatCompletionRequest['response_format'] }).body.generationConfig,
    ).toEqual(expected);
  });

  it.each([
    ['auto', 'auto', { functionCallingConfig: { mode: 'AUTO' } }],
    ['required', 'required', { functionCallingConfig: { mode: 'ANY' } }],
    ['none', 'none', { functionCallingConfig: { mode: 'NONE' } }],
    [
      'a named function',
      { type: 'function', function: { name: 'customDivide' } },
      { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['customDivide'] } },
    ],
  ])('tool_choice %s', (_name, toolChoice, expected) => {
    expect(
      convert({ tools: [divideTool], tool_choice: toolChoice as ChatCompletionRequest['tool_choice'] }).body.toolConfig,
    ).toEqual(expected);
  });

  it('enable_search adds Google Search grounding beside the functions', () => {
    expect(convert({ enable_search: true }).body.tools).toEqual([{ googleSearch: {} }]);
    expect(
      convert({ enable_search: true, tools: [divideTool] }).body.tools?.map((tool) => Object.keys(tool)[0]),
    ).toEqual(['functionDeclarations', 'googleSearch']);
  });

  it('images, audio and files become inlineData or fileData; reasoning_effort becomes a thinking budget', () => {
    const { body } = convert({
      reasoning_effort: 'low',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/a.webp?x=1' } },
            { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=' } },
          ],
        },
        { role: 'assistant', content: 'Seen.' },
        { role: 'user', content: 'And?' },
      ],
    });
    expect(body.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'Look' },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
          { fileData: { fileUri: 'https://example.com/a.webp?x=1', mimeType: 'image/webp' } },
          { inlineData: { mimeType: 'audio/wav', data: 'UklGRg==' } },
          { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
        ],
      },
      { role: 'model', parts: [{ text: 'Seen.' }] },
      { role: 'user', parts: [{ text: 'And?' }] },
    ]);
    expect(body.generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } });
  });

  it('answers to parallel calls travel in one user turn, non-object answers under output', () => {
    const { body } = convert({
      messages: [
        { role: 'user', content: 'Both' },
        {
          role: 'assistant',
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } },
            { id: 'call_b', type: 'function', function: { name: 'g', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: '42' },
        { role: 'tool', tool_call_id: 'call_b', content: 'plain words' },
      ],
    });
    expect(body.contents[2]).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { id: 'call_a', name: 'f', response: { output: 42 } } },
        { functionResponse: { id: 'call_b', name: 'g', response: { output: 'plain words' } } },
      ],
    });
  });

  it.each([
    [
      'a tool answer to an unknown call',
      {
        messages: [
          { role: 'user', content: 'x' },
          { role: 'tool', tool_call_id: 'nope', content: 'x' },
        ],
      },
      'messages[1].tool_call_id',
    ],
    [
      'audio in an unknown format',
      { messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AA', format: 'flac' } }] }] },
      'messages[0].content[0].input_audio.format',
    ],
    ['an unknown reasoning_effort', { reasoning_effort: 'extreme' }, 'reasoning_effort'],
    ['only a system message', { messages: [{ role: 'system', content: 'x' }] }, 'messages'],
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

import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { useProviderEndToEnd } from '../helpers/provider-end-to-end.js';
import { fixtureBytes, reframeGeminiJsonl } from '../helpers/fixtures.js';

const SSE = { 'content-type': 'text/event-stream' };

const e2e = useProviderEndToEnd(
  (url) => `
providers:
  - id: google
    name: Gemini
    type: gemini
    base_url: ${url}/v1beta
    api_key: gemini-secret
    timeouts: { connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000, total_ms: 15000 }
models:
  - id: google/gemini-pro
    name: Gemini Pro
    input_modalities: [text, image]
    output_modalities: [text]
    endpoints:
      - provider: google
        upstream_model: gemini-3-pro-preview
        pricing: { prompt: 2, completion: 12 }
`,
  { clientTimeoutMs: 15_000 },
);

const model = 'google/gemini-pro';

async function collect(stream: AsyncIterable<OpenAI.ChatCompletionChunk>) {
  let content = '';
  const toolCalls: Array<{ id: string; name: string; arguments: string }> = [];
  const finishReasons: string[] = [];
  let usage: OpenAI.CompletionUsage | null | undefined;
  for await (const chunk of stream) {
    expect(chunk.model).toBe(model);
    content += chunk.choices[0]?.delta?.content ?? '';
    for (const call of chunk.choices[0]?.delta?.tool_calls ?? []) {
      const entry = (toolCalls[call.index] ??= { id: '', name: '', arguments: '' });
      if (call.id) entry.id = call.id;
      if (call.function?.name) entry.name = call.function.name;
      entry.arguments += call.function?.arguments ?? '';
    }
    if (chunk.choices[0]?.finish_reason) finishReasons.push(chunk.choices[0].finish_reason);
    if (chunk.usage) usage = chunk.usage;
  }
  return { content, toolCalls, finishReasons, usage };
}

describe('Gemini through the gateway with the official openai SDK', () => {
  it('a whole answer: generateContent out, chat.completion with exact usage back', async () => {
    e2e.upstream.answer({ body: fixtureBytes('gemini', 'generateContent.text.response.json') });
    const completion = await e2e.client.chat.completions.create({
      model,
      max_tokens: 500,
      messages: [
        { role: 'system', content: 'Count letters carefully.' },
        { role: 'user', content: "How many r's in strawberry?" },
      ],
    });
    expect(completion.choices[0].message.content).toBe(
      "There are **3** r's in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.",
    );
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({
      prompt_tokens: 9,
      completion_tokens: 272,
      total_tokens: 281,
      completion_tokens_details: { reasoning_tokens: 244 },
    });
    const sent = e2e.upstream.requests[0];
    expect(sent.url).toBe('/v1beta/models/gemini-3-pro-preview:generateContent');
    expect(sent.headers['x-goog-api-key']).toBe('gemini-secret');
    expect(sent.json).toEqual({
      contents: [{ role: 'user', parts: [{ text: "How many r's in strawberry?" }] }],
      systemInstruction: { parts: [{ text: 'Count letters carefully.' }] },
      generationConfig: { maxOutputTokens: 500 },
    });
  });

  it('JSON mode asks for application/json with the schema', async () => {
    e2e.upstream.answer({ body: fixtureBytes('gemini', 'js-genai.nonstream.text.response.json') });
    const completion = await e2e.client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'why is the sky blue?' }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'answer',
          schema: { type: 'object', properties: { reason: { type: 'string' } }, additionalProperties: false },
        },
      },
    });
    expect(completion.choices[0].finish_reason).toBe('length');
    expect(e2e.upstream.requests[0].json.generationConfig).toEqual({
      responseMimeType: 'application/json',
      responseSchema: { type: 'object', properties: { reason: { type: 'string' } } },
    });
  });

  it('streams CRLF-framed text with the last running usage', async () => {
    e2e.upstream.answer({
      headers: SSE,
      body: fixtureBytes('gemini', 'streamGenerateContent.sse.usage-every-chunk.sse'),
      randomSplitSeed: 13,
    });
    const result = await collect(
      await e2e.client.chat.completions.create({
        model,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'Count from 1 to 30' }],
      }),
    );
    expect(result.content.split('\n')).toHaveLength(30);
    expect(result.finishReasons).toEqual(['stop']);
    expect(result.usage).toMatchObject({ prompt_tokens: 18, completion_tokens: 115, total_tokens: 133 });
    expect(e2e.upstream.requests[0].url).toBe('/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse');
  });

  it('a tool call, then the next turn sends the call back with its thoughtSignature and the function response', async () => {
    e2e.upstream.answer({
      headers: SSE,
      body: fixtureBytes('gemini', 'streamGenerateContent.sse.function-call.turn1.sse'),
      randomSplitSeed: 21,
    });
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'get_country',
          description: 'The user country',
          parameters: { type: 'object', properties: {} },
        },
      },
    ];
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'What is the capital of the user country? Call the tool' },
    ];
    const first = await collect(await e2e.client.chat.completions.create({ model, stream: true, messages, tools }));
    expect(first.finishReasons).toEqual(['tool_calls']);
    expect(first.toolCalls).toEqual([
      { id: expect.stringMatching(/^call_\w+\.sig\./), name: 'get_country', arguments: '{}' },
    ]);

    e2e.upstream.answer({
      headers: SSE,
      body: fixtureBytes('gemini', 'streamGenerateContent.sse.function-call.turn2.sse'),
      randomSplitSeed: 8,
    });
    const call = first.toolCalls[0];
    const second = await collect(
      await e2e.client.chat.completions.create({
        model,
        stream: true,
        stream_options: { include_usage: true },
        tools,
        messages: [
          ...messages,
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }],
          },
          { role: 'tool', tool_call_id: call.id, content: '{"return_value":"Mexico"}' },
        ],
      }),
    );
    expect(second.content).toBe('The capital of Mexico is Mexico City.');
    expect(second.usage).toMatchObject({ prompt_tokens: 257, completion_tokens: 8, total_tokens: 265 });
    const recordedSignature = JSON.parse(
      fixtureBytes('gemini', 'streamGenerateContent.sse.function-call.turn1.sse').toString().split('\r\n')[0].slice(6),
    ).candidates[0].content.parts[0].thoughtSignature;
    const sentContents = e2e.upstream.requests[1].json.contents;
    expect(sentContents[1]).toEqual({
      role: 'model',
      parts: [
        {
          functionCall: { id: call.id.split('.sig.')[0], name: 'get_country', args: {} },
          thoughtSignature: recordedSignature,
        },
      ],
    });
    expect(sentContents[2]).toEqual({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: call.id.split('.sig.')[0],
            name: 'get_country',
            response: { return_value: 'Mexico' },
          },
        },
      ],
    });
  });

  it('streams a re-framed chunks.jsonl recording (max tokens) as finish_reason length', async () => {
    e2e.upstream.answer({
      headers: SSE,
      body: reframeGeminiJsonl(fixtureBytes('gemini', 'js-genai.stream.max-tokens.response.chunks.jsonl').toString()),
      randomSplitSeed: 2,
    });
    const result = await collect(
      await e2e.client.chat.completions.create({
        model,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'why is the sky blue?' }],
      }),
    );
    expect(result.finishReasons).toEqual(['length']);
    expect(result.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 198 });
  });

  it('a 404 google.rpc.Status sent with an SSE content type is a 404 in our envelope', async () => {
    e2e.upstream.answer({ status: 404, headers: SSE, body: fixtureBytes('gemini', 'error.404.not_found.json') });
    const error = await e2e.client.chat.completions
      .create({ model, stream: true, messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('not_found');
    expect((error as Error).message).toMatch(/models\/custom-gemini-2.0-flash is not found/);
  });

  it.each([
    ['error.429.resource_exhausted.json', 429, OpenAI.RateLimitError, 'resource_exhausted'],
    ['error.400.invalid_argument.json', 400, OpenAI.BadRequestError, 'invalid_argument'],
  ])('%s reaches the client as %s', async (fixture, status, errorClass, code) => {
    e2e.upstream.answer({ status, body: fixtureBytes('gemini', fixture) });
    const error = await e2e.client.chat.completions
      .create({ model, messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(errorClass);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe(code);
    if (status === 429) expect((error as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('35');
  });

  it('a stream cut in the middle of an event ends in one error event', async () => {
    const text = fixtureBytes('gemini', 'streamGenerateContent.sse.legacy-gemini-pro.sse').toString();
    e2e.upstream.answer({
      headers: SSE,
      body: Buffer.from(text.slice(0, Math.floor(text.length / 2))),
      randomSplitSeed: 6,
    });
    const stream = await e2e.client.chat.completions.create({
      model,
      stream: true,
      messages: [{ role: 'user', content: 'cats and dogs' }],
    });
    const error = await collect(stream).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toMatch(/not JSON/);
  });
});

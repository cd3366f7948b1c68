import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { openApiErrors } from '../helpers/openapi-conformance.js';

// An OpenAI-compatible upstream that leaves out what OpenAI's document requires (logprobs, refusal)
// and sends nulls it does not allow (system_fingerprint): the gateway's answers must still conform.
let upstream: FakeUpstream;
let gateway: TestGateway;
let client: OpenAI;

const sparseCompletion = {
  id: 'x',
  object: 'chat.completion',
  created: 1,
  model: 'mock-model',
  system_fingerprint: null,
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hi there' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
};
const sparseChunks = [
  {
    id: 'x',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    system_fingerprint: null,
    choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' } }],
  },
  {
    id: 'x',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta: { content: ' there' }, finish_reason: 'stop' }],
  },
  {
    id: 'x',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  },
];

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway({ configText: testConfigText(`${upstream.url}/v1`) });
  client = new OpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseURL, maxRetries: 0, timeout: 10_000 });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});
beforeEach(() => {
  upstream.requests.length = 0;
});

const messages = [{ role: 'user' as const, content: 'Hello' }];

describe("chat answers validate against OpenAI's OpenAPI document whatever the upstream leaves out", () => {
  it('the upstream answer itself does not conform (the test would catch a pass-through)', () => {
    expect(openApiErrors('CreateChatCompletionResponse', sparseCompletion)).toMatch(
      /logprobs|refusal|system_fingerprint/,
    );
  });

  it('a whole answer gets logprobs: null and message.refusal: null, and loses system_fingerprint: null', async () => {
    upstream.answer({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(sparseCompletion) });
    const completion = await client.chat.completions.create({ model: 'test/chat', messages });
    expect(openApiErrors('CreateChatCompletionResponse', completion)).toBeNull();
    expect(completion.choices[0].logprobs).toBeNull();
    expect(completion.choices[0].message.refusal).toBeNull();
    expect(completion.choices[0].message.content).toBe('Hi there');
    expect('system_fingerprint' in completion).toBe(false);
  });

  it('every streamed chunk conforms, including the usage chunk', async () => {
    upstream.answer({
      headers: { 'content-type': 'text/event-stream' },
      body: sparseChunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('') + 'data: [DONE]\n\n',
    });
    const stream = await client.chat.completions.create({
      model: 'test/chat',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBe(3);
    for (const chunk of chunks) expect(openApiErrors('CreateChatCompletionStreamResponse', chunk)).toBeNull();
    expect(chunks[0].choices[0].finish_reason).toBeNull();
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Hi there');
  });

  it('answers with usage.cost and cost_details (usage: {include: true}) still conform, whole and streamed', async () => {
    upstream.answer({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(sparseCompletion) });
    const completion = await client.chat.completions.create({
      model: 'test/chat',
      messages,
      usage: { include: true },
    } as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming);
    expect((completion.usage as any).cost).toEqual(expect.any(Number));
    expect(openApiErrors('CreateChatCompletionResponse', completion)).toBeNull();

    upstream.answer({
      headers: { 'content-type': 'text/event-stream' },
      body: sparseChunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('') + 'data: [DONE]\n\n',
    });
    const stream = await client.chat.completions.create({
      model: 'test/chat',
      messages,
      stream: true,
      usage: { include: true },
    } as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming);
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect((chunks[chunks.length - 1].usage as any).cost_details).toBeDefined();
    for (const chunk of chunks) expect(openApiErrors('CreateChatCompletionStreamResponse', chunk)).toBeNull();
  });

  it('an error answer conforms to ErrorResponse', async () => {
    const response = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` },
      body: JSON.stringify({ model: 'test/chat', messages, temperature: 3 }),
    });
    expect(response.status).toBe(400);
    expect(openApiErrors('ErrorResponse', await response.json())).toBeNull();
  });
});

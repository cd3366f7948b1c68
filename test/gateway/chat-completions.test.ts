import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';

let upstream: MockUpstream;
let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startMockUpstream({ scenario: { chunkCount: 5 } });
  gateway = await startTestGateway({ configText: testConfigText(upstream.url) });
  client = new OpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseURL, maxRetries: 0, timeout: 10_000 });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

beforeEach(() => {
  upstream.setScenario({ chunkCount: 5 });
  upstream.requests.length = 0;
});

const messages = [{ role: 'user' as const, content: 'Say hello to the gateway' }];

describe('POST /v1/chat/completions through the official openai SDK', () => {
  it('answers a whole completion with the public model id, exact upstream usage and gateway headers', async () => {
    const { data: completion, response } = await client.chat.completions
      .create({ model: 'test/chat', messages })
      .withResponse();
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('test/chat');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.choices[0].message.role).toBe('assistant');
    expect(completion.choices[0].message.content?.split(' ')).toHaveLength(5);
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 });
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.get('x-gateway-provider')).toBe('mock');
    expect(response.headers.get('x-gateway-model')).toBe('test/chat');
    expect(response.headers.get('x-gateway-attempts')).toBe('1');
    const sent = upstream.requests[0];
    expect((sent.body as any).model).toBe('mock-model');
    expect(sent.headers.authorization).toBe('Bearer upstream-secret');
  });

  it('passes unknown parameters and the accepted OpenAI parameters through to the upstream', async () => {
    await client.chat.completions.create({
      model: 'test/chat',
      messages,
      n: 2,
      stop: ['END'],
      seed: 7,
      user: 'end-user-1',
      logprobs: true,
      top_logprobs: 2,
      max_completion_tokens: 50,
      temperature: 0.2,
      // @ts-expect-error an extra provider-specific parameter
      custom_vendor_flag: { deep: true },
    });
    const body = upstream.requests[0].body;
    expect(body).toMatchObject({
      n: 2,
      stop: ['END'],
      seed: 7,
      user: 'end-user-1',
      logprobs: true,
      top_logprobs: 2,
      max_completion_tokens: 50,
      temperature: 0.2,
      custom_vendor_flag: { deep: true },
    });
  });

  it('streams chat.completion.chunk events ending with [DONE], dropping usage the client did not ask for', async () => {
    const stream = await client.chat.completions.create({ model: 'test/chat', messages, stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThanOrEqual(6);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === 'test/chat')).toBe(true);
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);
    expect(chunks.at(-1)?.choices[0].finish_reason).toBe('stop');
    const text = chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('');
    expect(text.trim().split(/\s+/)).toHaveLength(5);
    // The gateway always asks upstream for usage, to meter exactly.
    expect((upstream.requests[0].body as any).stream_options).toEqual({ include_usage: true });
  });

  it('adds the usage chunk when stream_options.include_usage is set', async () => {
    const stream = await client.chat.completions.create({
      model: 'test/chat',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 });
  });

  it('reassembles streamed tool-call argument deltas', async () => {
    upstream.setScenario({ toolCall: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' } });
    const stream = await client.chat.completions.create({
      model: 'test/chat',
      messages,
      stream: true,
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
        },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });
    let name = '';
    let args = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta?.tool_calls ?? []) {
        name += call.function?.name ?? '';
        args += call.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(name).toBe('get_weather');
    expect(JSON.parse(args)).toEqual({ city: 'Paris', unit: 'celsius' });
    expect(finish).toBe('tool_calls');
    expect((upstream.requests[0].body as any).tool_choice).toBe('auto');
  });

  it('accepts tool results and content part arrays', async () => {
    const completion = await client.chat.completions.create({
      model: 'test/chat',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is here?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'a cat' },
      ],
    });
    expect(completion.choices[0].message.content).toBeTruthy();
    expect((upstream.requests[0].body as any).messages[3]).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content: 'a cat',
    });
  });
});

describe('GET /v1/models', () => {
  it('lists the routable models with modalities, context length and per-token prices, with or without a key', async () => {
    const list = await client.models.list();
    const model = list.data.find((item) => item.id === 'test/chat') as unknown as Record<string, unknown>;
    expect(model).toMatchObject({
      object: 'model',
      owned_by: 'test',
      display_name: 'Test Chat',
      input_modalities: ['text', 'image'],
      output_modalities: ['text'],
      context_length: 128000,
      pricing: { prompt: '0.0000005', completion: '0.0000015' },
    });
    const anonymous = await fetch(`${gateway.baseURL}/models`);
    expect(anonymous.status).toBe(200);
    expect(((await anonymous.json()) as { data: unknown[] }).data).toHaveLength(1);
    const one = await fetch(`${gateway.baseURL}/models/test/chat`);
    expect(((await one.json()) as { id: string }).id).toBe('test/chat');
  });

  it('shows a restricted key only its allowed models', async () => {
    const restricted = await gateway.createKey({ allowedModels: ['other/*'] });
    const response = await fetch(`${gateway.baseURL}/models`, { headers: { authorization: `Bearer ${restricted}` } });
    expect(((await response.json()) as { data: unknown[] }).data).toEqual([]);
  });
});

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 and describes the chat request schema', async () => {
    const document = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { requestBody?: unknown }>>;
    };
    expect(document.openapi).toBe('3.1.0');
    expect(document.paths['/v1/chat/completions'].post.requestBody).toBeTruthy();
    expect(document.paths['/v1/models'].get).toBeTruthy();
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import {
  bedrockEmbeddingsRoute,
  geminiEmbeddingsRoute,
  ollamaEmbeddingsRoute,
  openAIEmbeddingsRoute,
  startProtocolFakes,
  type ProtocolFakes,
} from '../helpers/protocol-fakes.js';
import { mockEmbeddingVector } from '../../src/mock-upstream/mock-embeddings.js';
import { openApiErrors } from '../helpers/openapi-conformance.js';
import { usageEvents } from '../helpers/usage-events.js';

let fakes: ProtocolFakes;
let gateway: TestGateway;
let client: OpenAI;

const timeouts = '{ connect_ms: 1000, first_byte_ms: 2000, idle_ms: 2000, total_ms: 5000 }';
const embed = '    output_modalities: [embeddings]';

beforeAll(async () => {
  fakes = await startProtocolFakes([
    openAIEmbeddingsRoute,
    geminiEmbeddingsRoute,
    bedrockEmbeddingsRoute,
    ollamaEmbeddingsRoute,
  ]);
  const url = fakes.url;
  gateway = await startTestGateway({
    configText: `
providers:
  - { id: oai, name: OpenAI-compatible, type: openai, base_url: ${url}/v1, api_key: oai-secret, timeouts: ${timeouts} }
  - { id: gem, name: Gemini, type: gemini, base_url: ${url}/v1beta, api_key: gem-secret, timeouts: ${timeouts} }
  - { id: aws, name: Bedrock, type: bedrock, base_url: ${url}, api_key: aws-bearer, options: { region: us-east-1 }, timeouts: ${timeouts} }
  - { id: oll, name: Ollama, type: ollama, base_url: ${url}, timeouts: ${timeouts} }
  - { id: claude, name: Anthropic, type: anthropic, base_url: ${url}/v1, api_key: a, timeouts: ${timeouts} }
models:
  - id: test/embed-oai
${embed}
    endpoints: [{ provider: oai, upstream_model: text-embedding-3-small, pricing: { prompt: 0.02, completion: 0 } }]
  - id: test/embed-gemini
${embed}
    endpoints: [{ provider: gem, upstream_model: gemini-embedding-001, pricing: { prompt: 0.15, completion: 0 } }]
  - id: test/embed-titan
${embed}
    endpoints: [{ provider: aws, upstream_model: 'amazon.titan-embed-text-v2:0', pricing: { prompt: 0.02, completion: 0 } }]
  - id: test/embed-cohere
${embed}
    endpoints: [{ provider: aws, upstream_model: cohere.embed-english-v3, pricing: { prompt: 0.1, completion: 0 } }]
  - id: test/embed-ollama
${embed}
    endpoints: [{ provider: oll, upstream_model: nomic-embed-text }]
  - id: test/embed-fallback
${embed}
    endpoints:
      - { provider: oai, upstream_model: text-embedding-3-small, priority: 1 }
      - { provider: gem, upstream_model: gemini-embedding-001, priority: 2 }
  - id: test/claude
    endpoints: [{ provider: claude, upstream_model: claude-sonnet-4-5 }]
`,
  });
  client = new OpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseURL, maxRetries: 0, timeout: 10_000 });
});
afterAll(async () => {
  await gateway?.close();
  await fakes?.close();
});
beforeEach(() => {
  fakes.requests.length = 0;
  fakes.override(null);
});

const texts = ['the quick brown fox', 'jumps over'];

describe('POST /v1/embeddings through the official openai SDK, on every embedding protocol', () => {
  it.each([
    ['test/embed-oai', '/v1/embeddings'],
    ['test/embed-gemini', '/v1beta/models/gemini-embedding-001:batchEmbedContents'],
    ['test/embed-cohere', '/model/cohere.embed-english-v3/invoke'],
    ['test/embed-ollama', '/api/embed'],
  ])('%s: float vectors in input order, the public model id, usage', async (model, path) => {
    const response = await client.embeddings.create({ model, input: texts, encoding_format: 'float' });
    expect(openApiErrors('CreateEmbeddingResponse', response)).toBeNull();
    expect(response.model).toBe(model);
    expect(response.data.map((item) => item.index)).toEqual([0, 1]);
    expect(response.data[0].embedding).toEqual(mockEmbeddingVector(texts[0], 8));
    expect(response.data[1].embedding).toEqual(mockEmbeddingVector(texts[1], 8));
    expect(response.usage.prompt_tokens).toBeGreaterThan(0);
    expect(response.usage.total_tokens).toBe(response.usage.prompt_tokens);
    expect(fakes.requests.map((request) => request.url)).toEqual([path]);
  });

  it('Titan: one InvokeModel call per input, token counts summed', async () => {
    const response = await client.embeddings.create({
      model: 'test/embed-titan',
      input: texts,
      encoding_format: 'float',
    });
    expect(response.data[1].embedding).toEqual(mockEmbeddingVector(texts[1], 8));
    expect(response.usage.prompt_tokens).toBe(6);
    expect(fakes.requests.map((request) => request.json)).toEqual([{ inputText: texts[0] }, { inputText: texts[1] }]);
    expect(fakes.requests[0].headers.authorization).toBe('Bearer aws-bearer');
  });

  it("the SDK's default (base64) decodes to the same floats; dimensions reach every protocol under its own name", async () => {
    const response = await client.embeddings.create({ model: 'test/embed-oai', input: 'hello world', dimensions: 4 });
    expect(fakes.requests[0].json).toMatchObject({
      dimensions: 4,
      encoding_format: 'float',
      model: 'text-embedding-3-small',
    });
    expect(response.data[0].embedding).toEqual(mockEmbeddingVector('hello world', 4));
    for (const [model, field] of [
      ['test/embed-gemini', 'outputDimensionality'],
      ['test/embed-titan', 'dimensions'],
      ['test/embed-cohere', 'output_dimension'],
      ['test/embed-ollama', 'dimensions'],
    ]) {
      fakes.requests.length = 0;
      const answer = await client.embeddings.create({ model, input: 'hello world', dimensions: 4 });
      expect(answer.data[0].embedding).toEqual(mockEmbeddingVector('hello world', 4));
      expect(JSON.stringify(fakes.requests[0].json)).toContain(`"${field}":4`);
    }
  });

  it('encoding_format base64 on the wire is float32 little-endian', async () => {
    const response = await fetch(`${gateway.baseURL}/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` },
      body: JSON.stringify({ model: 'test/embed-gemini', input: 'abc', encoding_format: 'base64' }),
    });
    const body = (await response.json()) as any;
    const bytes = Buffer.from(body.data[0].embedding, 'base64');
    const floats = Array.from({ length: bytes.length / 4 }, (_, index) => bytes.readFloatLE(index * 4));
    expect(floats).toEqual(mockEmbeddingVector('abc', 8));
  });

  it('token-array input passes to OpenAI-compatible providers and is refused by name elsewhere', async () => {
    const response = await client.embeddings.create({
      model: 'test/embed-oai',
      input: [[1, 2, 3]],
      encoding_format: 'float',
    });
    expect(fakes.requests[0].json.input).toEqual([[1, 2, 3]]);
    expect(response.data).toHaveLength(1);
    const error = await client.embeddings
      .create({ model: 'test/embed-gemini', input: [1, 2, 3] })
      .catch((caught) => caught);
    expect(error.status).toBe(400);
    expect(error.error).toMatchObject({ param: 'input', type: 'invalid_request_error' });
    expect(error.message).toMatch(/token-array input is not accepted by Gemini/);
  });

  it('falls back to the next endpoint when the first fails', async () => {
    fakes.override((request) => (request.url === '/v1/embeddings' ? { status: 500, body: '{}' } : undefined));
    const { data, response } = await client.embeddings
      .create({ model: 'test/embed-fallback', input: 'x y', encoding_format: 'float' })
      .withResponse();
    expect(data.data[0].embedding).toEqual(mockEmbeddingVector('x y', 8));
    expect(response.headers.get('x-gateway-provider')).toBe('gem');
    expect(response.headers.get('x-gateway-attempts')).toBe('2');
  });

  it('/v1/models marks the models that embed', async () => {
    const models = await client.models.list();
    const byId = new Map(models.data.map((model) => [model.id, model as unknown as { output_modalities: string[] }]));
    expect(byId.get('test/embed-gemini')!.output_modalities).toEqual(['embeddings']);
    expect(byId.get('test/claude')!.output_modalities).toEqual(['text']);
  });
});

describe('bad input is a 400 in the OpenAI envelope', () => {
  it.each([
    [{ model: 'test/embed-oai' }, 'input'],
    [{ model: 'test/embed-oai', input: [] }, 'input'],
    [{ model: 'test/embed-oai', input: '' }, 'input'],
    [{ model: 'test/embed-oai', input: ['a', ''] }, 'input[1]'],
    [{ model: 'test/embed-oai', input: 'a', encoding_format: 'hex' }, 'encoding_format'],
    [{ model: 'test/embed-oai', input: 'a', dimensions: 0 }, 'dimensions'],
    [{ model: 'test/claude', input: 'a' }, 'model'],
  ])('%j', async (body, param) => {
    const response = await fetch(`${gateway.baseURL}/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(400);
    const envelope = (await response.json()) as any;
    expect(openApiErrors('ErrorResponse', envelope)).toBeNull();
    expect(envelope.error.param).toBe(param);
    expect(fakes.requests).toHaveLength(0);
  });
});

describe('the other way round (issue 28)', () => {
  it('refuses a chat completion on an embedding-only model with a 400 model_not_chat, before any upstream call', async () => {
    const before = fakes.requests.length;
    const response = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` },
      body: JSON.stringify({ model: 'test/embed-oai', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(400);
    const envelope = (await response.json()) as any;
    expect(openApiErrors('ErrorResponse', envelope)).toBeNull();
    expect(envelope.error).toMatchObject({ type: 'invalid_request_error', code: 'model_not_chat', param: 'model' });
    expect(envelope.error.message).toContain('/v1/embeddings');
    expect(fakes.requests).toHaveLength(before);
  });
});

describe('metered and limited like chat', () => {
  it('records usage and cost (reported tokens, or an estimate when the provider reports none)', async () => {
    const before = (await usageEvents(gateway, 0)).length;
    await client.embeddings.create({ model: 'test/embed-oai', input: 'one two three four', encoding_format: 'float' });
    await client.embeddings.create({
      model: 'test/embed-gemini',
      input: 'one two three four',
      encoding_format: 'float',
    });
    const events = (await usageEvents(gateway, before + 2)).slice(before);
    const oai = events.find((event) => event.model_id === 'test/embed-oai')!;
    expect(oai).toMatchObject({
      status: 200,
      prompt_tokens: 4,
      completion_tokens: 0,
      total_tokens: 4,
      provider_id: 'oai',
    });
    // 0.02 USD per million tokens = 20 nano-USD a token.
    expect(Number(oai.cost_nanos)).toBe(4 * 20);
    const gemini = events.find((event) => event.model_id === 'test/embed-gemini')!;
    expect(Number(gemini.prompt_tokens)).toBeGreaterThan(0);
    expect(Number(gemini.cost_nanos)).toBe(Number(gemini.prompt_tokens) * 150);
  });

  it("a key's requests-per-minute limit applies", async () => {
    const limited = new OpenAI({
      apiKey: await gateway.createKey({ rpmLimit: 1 }),
      baseURL: gateway.baseURL,
      maxRetries: 0,
    });
    await limited.embeddings.create({ model: 'test/embed-oai', input: 'a', encoding_format: 'float' });
    const error = await limited.embeddings.create({ model: 'test/embed-oai', input: 'a' }).catch((caught) => caught);
    expect(error.status).toBe(429);
    expect(error.headers.get('retry-after')).toBeTruthy();
  });
});

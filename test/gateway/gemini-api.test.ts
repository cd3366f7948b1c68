import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import {
  CHAT_PROTOCOL_ROUTES,
  geminiEmbeddingsRoute,
  startProtocolFakes,
  threeProtocolConfig,
  type ProtocolFakes,
} from '../helpers/protocol-fakes.js';
import { usageEvents } from '../helpers/usage-events.js';

/** Gemini CLI called `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` and got a 404 (issue 26). */
let fakes: ProtocolFakes;
let gateway: TestGateway;

beforeAll(async () => {
  fakes = await startProtocolFakes([...CHAT_PROTOCOL_ROUTES, geminiEmbeddingsRoute]);
  gateway = await startTestGateway({
    configText: threeProtocolConfig(
      fakes.url,
      `  - id: test/embed-gemini
    output_modalities: [embeddings]
    endpoints: [{ provider: gem, upstream_model: gemini-embedding-001, pricing: { prompt: 0.15, completion: 0 } }]
`,
    ),
  });
});
afterAll(async () => {
  await gateway?.close();
  await fakes?.close();
});
beforeEach(() => {
  fakes.requests.length = 0;
});

const call = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': gateway.apiKey, ...headers },
    body: JSON.stringify(body),
  });

const hello = {
  contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
  systemInstruction: { parts: [{ text: 'Be brief.' }] },
  generationConfig: {
    temperature: 1,
    topP: 0.95,
    topK: 64,
    thinkingConfig: { includeThoughts: true, thinkingLevel: 'HIGH' },
  },
};

const dataEvents = (text: string) =>
  text
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)));

describe.each([
  ['test/gemini', 'gemini'],
  ['test/openai', 'openai'],
  ['test/claude', 'anthropic'],
])('the Gemini API on %s', (model, protocol) => {
  it('regression: streamGenerateContent?alt=sse answers SSE chunks with the text and usage', async () => {
    const response = await call(`/v1beta/models/${model}:streamGenerateContent?alt=sse`, hello);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const chunks = dataEvents(await response.text());
    const text = chunks
      .flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? [])
      .map((part: any) => part.text ?? '');
    expect(text.join('')).toBe(`Hello from ${protocol}`);
    expect(chunks.some((chunk) => chunk.candidates?.[0]?.finishReason === 'STOP')).toBe(true);
    expect(chunks.at(-1).usageMetadata).toMatchObject({ promptTokenCount: 11, totalTokenCount: 18 });
  });

  it('generateContent answers a GenerateContentResponse; the key may also come as ?key=', async () => {
    const response = await fetch(`${gateway.url}/v1beta/models/${model}:generateContent?key=${gateway.apiKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(hello),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    expect(body.candidates[0].content).toEqual({ role: 'model', parts: [{ text: `Hello from ${protocol}` }] });
    expect(body.usageMetadata).toMatchObject({ promptTokenCount: 11, candidatesTokenCount: 7, totalTokenCount: 18 });
  });

  it('a function declaration is called; the next turn carries the functionResponse', async () => {
    const tools = [
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'The weather in a city',
            parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
          },
        ],
      },
    ];
    const first = (await (await call(`/v1beta/models/${model}:generateContent`, { ...hello, tools })).json()) as any;
    const callPart = first.candidates[0].content.parts.find((part: any) => part.functionCall);
    expect(callPart.functionCall).toMatchObject({ name: 'get_weather', args: { city: 'Paris' } });
    const second = await call(`/v1beta/models/${model}:generateContent`, {
      contents: [
        ...hello.contents,
        { role: 'model', parts: [callPart] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: 'Sunny' } } }] },
      ],
      tools,
    });
    expect(second.status).toBe(200);
  });
});

describe('the Gemini API, the rest', () => {
  it('model ids containing "/" work, errors come in Gemini’s envelope', async () => {
    const missing = await call('/v1beta/models/acme/nope:generateContent', hello);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
    const denied = await call('/v1beta/models/test/gemini:generateContent', hello, { 'x-goog-api-key': 'sk-gw-wrong' });
    expect(denied.status).toBe(401);
    expect(await denied.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
    const bad = await call('/v1beta/models/test/openai:generateContent', { contents: [] });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
  });

  it('on a Gemini endpoint the body is forwarded as it is (native); elsewhere what chat lacks is named', async () => {
    await call('/v1beta/models/test/gemini:generateContent', { ...hello, safetySettings: [], cachedContent: 'c/1' });
    expect(fakes.requests[0].url).toBe('/v1beta/models/gemini-fake:generateContent');
    expect(fakes.requests[0].json).toEqual({ ...hello, safetySettings: [], cachedContent: 'c/1' });
    const translated = await call('/v1beta/models/test/openai:generateContent', { ...hello, safetySettings: [] });
    expect(translated.headers.get('x-gateway-dropped-params')).toBe('safetySettings, generationConfig.topK');
    expect(fakes.requests[1].json.reasoning_effort).toBe('high');
  });

  it('countTokens on a model without a Gemini endpoint is the gateway estimate, nothing sent upstream', async () => {
    const estimated = (await (
      await call('/v1beta/models/test/openai:countTokens', { contents: hello.contents })
    ).json()) as any;
    expect(estimated.totalTokens).toBeGreaterThan(0);
    expect(fakes.requests).toHaveLength(0);
  });

  it('embedContent and batchEmbedContents', async () => {
    const one = (await (
      await call('/v1beta/models/test/embed-gemini:embedContent', {
        content: { parts: [{ text: 'hello world' }] },
        outputDimensionality: 4,
      })
    ).json()) as any;
    expect(one.embedding.values).toHaveLength(4);
    const many = (await (
      await call('/v1beta/models/test/embed-gemini:batchEmbedContents', {
        requests: [{ content: { parts: [{ text: 'a' }] } }, { content: { parts: [{ text: 'b' }] } }],
      })
    ).json()) as any;
    expect(many.embeddings).toHaveLength(2);
  });

  it('GET /v1beta/models lists the models in Gemini’s shape', async () => {
    const response = await fetch(`${gateway.url}/v1beta/models`, { headers: { 'x-goog-api-key': gateway.apiKey } });
    const body = (await response.json()) as any;
    expect(body.models.map((model: any) => model.name)).toContain('models/test/gemini');
  });

  it('is metered once per request like any surface', async () => {
    const before = (await usageEvents(gateway, 0)).length;
    await (await call('/v1beta/models/test/gemini:streamGenerateContent?alt=sse', hello)).text();
    const events = await usageEvents(gateway, before + 1);
    expect(events).toHaveLength(before + 1);
    expect(events.at(-1)).toMatchObject({ model_id: 'test/gemini', status: 200 });
    // 0.5 and 1 USD per million tokens: 500 and 1,000 nano-USD a token.
    expect(Number(events.at(-1)!.cost_nanos)).toBe(11 * 500 + 7 * 1000);
  });
});

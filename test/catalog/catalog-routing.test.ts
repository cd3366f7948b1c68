import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import type { CompletionOutcome } from '../../src/routing/completion-outcome.js';
import { computeCostNanos } from '../../src/metering/compute-cost.js';
import { loadCatalogData } from '../../src/catalog/load-catalog-data.js';

// A provider declared with a preset id and no models: the catalog supplies what it serves.
let upstream: MockUpstream;
let gateway: TestGateway;
let client: OpenAI;
const outcomes: CompletionOutcome[] = [];
const catalogEntry = (id: string) => loadCatalogData().models.find((model) => model.id === id)!;

beforeAll(async () => {
  upstream = await startMockUpstream({ scenario: { chunkCount: 4 } });
  gateway = await startTestGateway({
    configText: `
providers:
  - id: openai
    base_url: ${upstream.url}
    api_key: upstream-secret
models:
  - id: openai/gpt-4o
    name: House GPT-4o
    endpoints:
      - { provider: openai, upstream_model: house-gpt-4o, pricing: { prompt: 1, completion: 2 } }
`,
    deps: { observers: [{ onCompletion: (outcome) => outcomes.push(outcome) }] },
  });
  client = new OpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseURL, maxRetries: 0, timeout: 10_000 });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe('catalog models served by a configured provider', () => {
  it('lists a catalog model in /v1/models with the catalog price and context length', async () => {
    const list = await client.models.list();
    const ids = list.data.map((model) => model.id);
    expect(ids).toContain('openai/gpt-4o-mini');
    expect(ids).not.toContain('google/gemini-2.0-flash');
    expect(ids).not.toContain('anthropic/claude-sonnet-4');
    const mini = list.data.find((model) => model.id === 'openai/gpt-4o-mini') as any;
    // $0.15 / $0.60 per million tokens in the catalog, per token here.
    expect(mini).toMatchObject({
      owned_by: 'openai',
      context_length: 128000,
      pricing: { prompt: '0.00000015', completion: '0.0000006' },
    });
    expect(mini.pricing.prompt).toBe((catalogEntry('openai/gpt-4o-mini').pricing!.promptMicros / 1e12).toFixed(8));
  });

  it('answers through the openai SDK, sending the upstream model name, billed at the catalog price', async () => {
    upstream.requests.length = 0;
    outcomes.length = 0;
    const { data: completion, response } = await client.chat.completions
      .create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Hello catalog' }] })
      .withResponse();
    expect(completion.model).toBe('openai/gpt-4o-mini');
    expect(completion.choices[0].message.content?.split(' ')).toHaveLength(4);
    expect(response.headers.get('x-gateway-provider')).toBe('openai');
    expect((upstream.requests.at(-1)?.body as any)?.model).toBe('gpt-4o-mini');
    await expect.poll(() => outcomes.length).toBe(1);
    expect(outcomes[0]).toMatchObject({
      modelId: 'openai/gpt-4o-mini',
      providerId: 'openai',
      upstreamModel: 'gpt-4o-mini',
      status: 200,
    });
    // What metering charges: the routed endpoint's price, which is the catalog's.
    const endpoint = gateway.gateway.directory.get('openai/gpt-4o-mini')!.endpoints[0];
    expect(endpoint.pricing).toEqual(catalogEntry('openai/gpt-4o-mini').pricing);
    const cost = computeCostNanos(
      {
        promptTokens: 1_000_000,
        completionTokens: 1_000_000,
        cachedTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
      },
      endpoint.pricing,
      { perRequest: true },
    );
    expect(cost).toBe(750_000_000); // $0.15 + $0.60
    // Metering recorded the request at that price.
    const requestId = response.headers.get('x-request-id')!;
    const metered = async () =>
      gateway.testStore.store.db
        .selectFrom('usage_events')
        .select(['model_id', 'upstream_model', 'cost_nanos'])
        .where('request_id', '=', requestId)
        .executeTakeFirst();
    await expect.poll(metered, { timeout: 10_000 }).toBeDefined();
    const usage = completion.usage!;
    const expected = computeCostNanos(
      {
        promptTokens: usage.prompt_tokens,
        completionTokens: usage.completion_tokens,
        cachedTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
      },
      endpoint.pricing,
      { perRequest: true },
    );
    expect(expected).toBeGreaterThan(0);
    expect(await metered()).toMatchObject({ model_id: 'openai/gpt-4o-mini', upstream_model: 'gpt-4o-mini' });
    expect(Number((await metered())!.cost_nanos)).toBe(expected);
  });

  it('streams a catalog model too', async () => {
    const stream = await client.chat.completions.create({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text.trim().split(' ')).toHaveLength(4);
    expect((upstream.requests.at(-1)?.body as any)?.model).toBe('gpt-4o-mini');
  });

  it('lets the config model win over the catalog one', async () => {
    const model = (await client.models.retrieve('openai/gpt-4o')) as any;
    expect(model).toMatchObject({
      display_name: 'House GPT-4o',
      pricing: { prompt: '0.000001', completion: '0.000002' },
    });
    await client.chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });
    expect((upstream.requests.at(-1)?.body as any)?.model).toBe('house-gpt-4o');
  });

  it('answers 404 for a catalog model no configured provider offers', async () => {
    const error = await client.chat.completions
      .create({ model: 'google/gemini-2.0-flash', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.code).toBe('model_not_found');
    expect((await fetch(`${gateway.baseURL}/models/google/gemini-2.0-flash`)).status).toBe(404);
  });

  it('shows the catalog model as routable, with its endpoint, in the public catalog', async () => {
    const body = (await (await fetch(`${gateway.url}/api-account/models/openai/gpt-4o-mini`)).json()) as any;
    expect(body.routable).toBe(true);
    expect(body.endpoints[0]).toMatchObject({ provider: 'openai', upstream_model: 'gpt-4o-mini' });
    expect(body.sources.pricing).toMatch(/^genai-prices/);
    const served = (await (await fetch(`${gateway.url}/api-account/models?provider=openai&limit=500`)).json()) as any;
    expect(served.total).toBeGreaterThan(20);
  });
});

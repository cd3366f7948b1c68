import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { rollupFromEvents } from '../../src/statistics/usage-stats-recorder.js';

let gateway: TestGateway;
const get = async (path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${gateway.url}${path}`, { headers });
  return {
    status: response.status,
    headers: response.headers,
    body: response.status === 304 ? null : ((await response.json()) as any),
  };
};
const ids = (body: { data: { id: string }[] }) => body.data.map((model) => model.id);

beforeAll(async () => {
  // test/chat from the helper, plus a config override of a built-in model (config wins).
  gateway = await startTestGateway({
    configText: testConfigText(
      'http://127.0.0.1:9/v1',
      `
  - id: anthropic/claude-sonnet-4
    description: Served by our mock
    tags: [house-favourite]
    endpoints:
      - provider: mock
        upstream_model: sonnet
        pricing: { prompt: 0.25, completion: 1 }
        context_length: 64000
`,
    ),
  });
  const now = Date.now();
  await rollupFromEvents(gateway.testStore.store, [
    {
      timestamp: now,
      modelId: 'test/chat',
      providerId: 'mock',
      userId: 'u',
      promptTokens: 900,
      completionTokens: 100,
      latencyMs: 300,
      ttftMs: 100,
      status: 200,
    },
    {
      timestamp: now,
      modelId: 'anthropic/claude-sonnet-4',
      providerId: 'mock',
      userId: 'u',
      promptTokens: 10,
      completionTokens: 10,
      latencyMs: 300,
      ttftMs: 100,
      status: 200,
    },
  ]);
});
afterAll(async () => gateway?.close());

describe('GET /api-account/models', () => {
  it('shows hundreds of real models from the built-in data, paged with total, limit and offset', async () => {
    const { status, body, headers } = await get('/api-account/models?limit=10&sort=name');
    expect(status).toBe(200);
    expect(body.total).toBeGreaterThan(300);
    expect(body).toMatchObject({ limit: 10, offset: 0 });
    expect(body.data).toHaveLength(10);
    expect(headers.get('cache-control')).toBe('public, max-age=60');
    const next = await get('/api-account/models?limit=10&offset=10&sort=name');
    expect(ids(next.body).some((id: string) => ids(body).includes(id))).toBe(false);
    const etag = headers.get('etag')!;
    expect((await get('/api-account/models?limit=10&sort=name', { 'if-none-match': etag })).status).toBe(304);
  });

  it('merges config over the built-in data and records the source of each field', async () => {
    const { body } = await get('/api-account/models/anthropic/claude-sonnet-4');
    expect(body.description).toBe('Served by our mock');
    expect(body.tags).toEqual(['house-favourite']);
    expect(body.pricing.prompt).toBe('0.25');
    expect(body.context_length).toBe(64000);
    expect(body.sources.pricing).toBe('config');
    expect(body.sources.capabilities).toMatch(/^(llm-zoo|tokenlens)/);
    expect(body.name).toBe('Claude Sonnet 4');
    expect(body.endpoints[0]).toMatchObject({
      provider: 'mock',
      upstream_model: 'sonnet',
      status: 'active',
      stats_24h: { requests: 1 },
    });
    expect(body.routable).toBe(true);
  });

  it('filters by text, author, provider, modality, capability, tag, price and context', async () => {
    expect(ids((await get('/api-account/models?provider=mock&sort=name')).body)).toEqual([
      'anthropic/claude-sonnet-4',
      'test/chat',
    ]);
    expect(ids((await get('/api-account/models?tag=house-favourite')).body)).toEqual(['anthropic/claude-sonnet-4']);
    const vision = (await get('/api-account/models?author=anthropic&capability=vision&capability=tools&limit=500'))
      .body;
    expect(vision.total).toBeGreaterThan(3);
    for (const model of vision.data)
      expect(
        model.author === 'anthropic' && model.capabilities.includes('vision') && model.capabilities.includes('tools'),
      ).toBe(true);
    const cheap = (await get('/api-account/models?max_prompt_price=0.3&min_context=100000&limit=500')).body;
    for (const model of cheap.data) {
      expect(Number(model.pricing.prompt)).toBeLessThanOrEqual(0.3);
      expect(model.context_length).toBeGreaterThanOrEqual(100000);
    }
    const images = (await get('/api-account/models?input_modality=image&provider=mock')).body;
    expect(ids(images).sort()).toEqual(['anthropic/claude-sonnet-4', 'test/chat']);
    expect(ids((await get('/api-account/models?q=TEST%20CHAT')).body)).toEqual(['test/chat']);
  });

  it('sorts by price, context, newest and popularity', async () => {
    const byPrice = (await get('/api-account/models?sort=price&provider=mock')).body;
    expect(ids(byPrice)).toEqual(['anthropic/claude-sonnet-4', 'test/chat']);
    expect(ids((await get('/api-account/models?sort=price&order=desc&provider=mock')).body)).toEqual([
      'test/chat',
      'anthropic/claude-sonnet-4',
    ]);
    expect(ids((await get('/api-account/models?sort=context&provider=mock')).body)).toEqual([
      'test/chat',
      'anthropic/claude-sonnet-4',
    ]);
    expect(ids((await get('/api-account/models?sort=popularity&limit=2')).body)).toEqual([
      'test/chat',
      'anthropic/claude-sonnet-4',
    ]);
    const newest = (await get('/api-account/models?sort=newest&author=anthropic&limit=500')).body.data.filter(
      (model: { created: string | null }) => model.created,
    );
    const dates = newest.map((model: { created: string }) => model.created);
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it('available=true keeps only the models this gateway routes, and they lead the default order', async () => {
    const available = (await get('/api-account/models?available=true&limit=500')).body;
    expect(available.total).toBeGreaterThan(0);
    expect(available.data.every((model: { routable: boolean }) => model.routable)).toBe(true);
    const all = (await get('/api-account/models?limit=500')).body.data as { routable: boolean }[];
    const firstUnroutable = all.findIndex((model) => !model.routable);
    expect(firstUnroutable).toBe(available.total);
  });

  it.each([
    ['sort=cheapest', 'sort'],
    ['order=up', 'order'],
    ['limit=0', 'limit'],
    ['limit=501', 'limit'],
    ['offset=-1', 'offset'],
    ['max_prompt_price=abc', 'max_prompt_price'],
    ['min_context=0', 'min_context'],
    // A repeatable parameter is named with the index of the bad occurrence.
    ['capability=telepathy', 'capability[0]'],
    ['capability=tools&capability=telepathy', 'capability[1]'],
    ['input_modality=smell', 'input_modality[0]'],
    ['author=nobody-at-all', 'author'],
    ['provider=nope', 'provider'],
    ['tag=no-such-tag', 'tag'],
    ['colour=blue', 'colour'],
  ])('answers 400 naming the param for %s', async (query, param) => {
    const { status, body } = await get(`/api-account/models?${query}`);
    expect(status).toBe(400);
    expect(body.error.param).toBe(param);
    expect(body.error.type).toBe('invalid_request_error');
  });
});

describe('model pages and filters', () => {
  it('finds model paths with slashes, also by alias, and 404s unknown ones in the envelope', async () => {
    expect((await get('/api-account/models/openai/gpt-4o')).body).toMatchObject({
      id: 'openai/gpt-4o',
      model_path: 'openai/gpt-4o',
      routable: false,
    });
    expect((await get('/api-account/models/anthropic/claude-sonnet-4-20250514')).body.id).toBe(
      'anthropic/claude-sonnet-4',
    );
    expect((await get('/api-account/models/test/chat')).body.endpoints).toHaveLength(1);
    const missing = await get('/api-account/models/nobody/nothing');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: 'not_found_error', code: 'model_not_found' });
  });

  it('lists the available filter values with counts', async () => {
    const { body } = await get('/api-account/models/filters');
    expect(body.providers).toEqual([{ value: 'mock', count: 2 }]);
    expect(body.capabilities.map((entry: { value: string }) => entry.value)).toEqual(
      expect.arrayContaining(['tools', 'vision', 'reasoning']),
    );
    expect(body.authors.find((entry: { value: string }) => entry.value === 'openai').count).toBeGreaterThan(20);
    expect(body.sorts).toEqual(['name', 'price', 'context', 'popularity', 'newest']);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { requestJson } from '../helpers/account-client.js';
import { STORE_KINDS } from '../helpers/test-store.js';
import { rollupFromEvents } from '../../src/statistics/usage-stats-recorder.js';

/**
 * Issue 17, item 3: provider health from every attempt. `broken` answers 500 to everything, `hanging` never answers (timeout),
 * `garbled` answers bytes that are not JSON, `refused` listens nowhere; `good` works. Failed
 * attempts count for the provider that failed them, fallbacks included.
 */
function config(urls: { good: string; broken: string; garbled: string; hanging: string }): string {
  const provider = (id: string, url: string, firstByteMs = 2000) => `
  - id: ${id}
    name: ${id}
    type: openai
    base_url: ${url}
    timeouts: { connect_ms: 1000, first_byte_ms: ${firstByteMs}, idle_ms: 1500, total_ms: 5000 }`;
  const endpoint = (id: string, price: number) => `
      - provider: ${id}
        upstream_model: m
        pricing: { prompt: ${price}, completion: ${price} }`;
  return `
providers:${provider('good', urls.good)}${provider('broken', urls.broken)}${provider('garbled', urls.garbled)}${provider('refused', 'http://127.0.0.1:9/v1')}${provider('hanging', urls.hanging, 300)}
models:
  - id: test/fallback
    name: Fallback
    endpoints:${endpoint('broken', 1)}${endpoint('good', 2)}
  - id: test/broken
    name: Broken only
    endpoints:${endpoint('broken', 1)}
  - id: test/garbled
    name: Garbled only
    endpoints:${endpoint('garbled', 1)}
  - id: test/refused
    name: Refused only
    endpoints:${endpoint('refused', 1)}
  - id: test/hanging
    name: Hanging only
    endpoints:${endpoint('hanging', 1)}
routing:
  retries: 0
  circuit_breaker: { failure_threshold: 1000 }
catalog:
  stats_cache_ms: 0
`;
}

describe.each(STORE_KINDS)('provider health from every attempt (%s)', (storeKind) => {
  let good: MockUpstream;
  let broken: MockUpstream;
  let garbled: MockUpstream;
  let hanging: MockUpstream;
  let gateway: TestGateway;

  const chat = (model: string) =>
    requestJson(
      gateway.url,
      'POST',
      '/v1/chat/completions',
      { model, messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gateway.apiKey}` },
    );
  const get = async (path: string) => {
    const response = await requestJson(gateway.url, 'GET', path);
    expect(response.status, path).toBe(200);
    return response.body;
  };

  beforeAll(async () => {
    good = await startMockUpstream({ scenario: { chunkCount: 3 } });
    broken = await startMockUpstream({ scenario: { failure: { kind: 'status', status: 500 } } });
    garbled = await startMockUpstream({ scenario: { failure: { kind: 'garbage' } } });
    hanging = await startMockUpstream({ scenario: { failure: { kind: 'hang' } } });
    gateway = await startTestGateway({
      configText: config({ good: good.url, broken: broken.url, garbled: garbled.url, hanging: hanging.url }),
      storeKind,
    });
    for (let index = 0; index < 4; index++) {
      expect((await chat('test/broken')).status).toBeGreaterThanOrEqual(500);
      expect((await chat('test/garbled')).status).toBeGreaterThanOrEqual(500);
      expect((await chat('test/refused')).status).toBeGreaterThanOrEqual(500);
    }
    // Timed out: no first byte within 300 ms.
    for (let index = 0; index < 2; index++) expect((await chat('test/hanging')).status).toBe(504);
    for (let index = 0; index < 6; index++) {
      const answered = await chat('test/fallback');
      expect(answered.status).toBe(200);
      expect(answered.headers.get('x-gateway-provider')).toBe('good');
      expect(answered.headers.get('x-gateway-attempts')).toBe('2');
    }
    await gateway.gateway.catalogFeatures.recorder.flush();
  });
  afterAll(async () => {
    await gateway?.close();
    await Promise.all([good?.close(), broken?.close(), garbled?.close(), hanging?.close()]);
  });

  it.each([
    // 4 requests of its own and 6 fallback attempts, every one failed
    ['broken', 10],
    ['garbled', 4],
    ['refused', 4],
    ['hanging', 2],
  ])('a provider failing every request (%s) is down with its measured success rate', async (id, attempts) => {
    for (const window of ['1h', '24h', '7d']) {
      const stats = await get(`/api-account/providers/${id}/stats?window=${window}`);
      expect(stats.totals).toMatchObject({ requests: attempts, successes: 0, success_rate: 0, uptime: 0 });
      expect(stats.status).toBe('down');
    }
    const detail = await get(`/api-account/providers/${id}`);
    expect(detail.status).toBe('down');
    const list = await get('/api-account/providers');
    expect(list.data.find((provider: { id: string }) => provider.id === id).status).toBe('down');
  });

  it('the provider a fallback reached counts its answers, and only those', async () => {
    const stats = await get('/api-account/providers/good/stats?window=1h');
    expect(stats.totals).toMatchObject({ requests: 6, successes: 6, success_rate: 1, uptime: 1 });
    expect(stats.totals.completion_tokens).toBeGreaterThan(0);
    expect(stats.status).toBe('active');
  });

  it('the catalog shows each endpoint of a model with its own health', async () => {
    const model = await get('/api-account/models/test/fallback');
    const status = Object.fromEntries(
      model.endpoints.map((endpoint: { provider: string; status: string }) => [endpoint.provider, endpoint.status]),
    );
    expect(status).toEqual({ broken: 'down', good: 'active' });
    const brokenEndpoint = model.endpoints.find((endpoint: { provider: string }) => endpoint.provider === 'broken');
    // Per model: test/fallback's 6 attempts on broken, not its 4 requests of test/broken.
    expect(brokenEndpoint.stats_24h).toMatchObject({ requests: 6, success_rate: 0, uptime: 0 });
  });

  it('a provider between the thresholds is degraded', async () => {
    const now = Date.now();
    const event = (status: number) => ({
      timestamp: now,
      modelId: 'test/fallback',
      providerId: 'good',
      userId: null,
      promptTokens: 0,
      completionTokens: 0,
      latencyMs: 10,
      ttftMs: null,
      status,
    });
    // good has 6 answered; 1 failure more → uptime 6/7 ≈ 0.857, under 95 %, over 50 %: degraded.
    await rollupFromEvents(gateway.testStore.store, [event(503)]);
    const stats = await get('/api-account/providers/good/stats?window=1h');
    expect(stats.totals.uptime).toBeCloseTo(6 / 7, 3);
    expect(stats.status).toBe('degraded');
  });
});

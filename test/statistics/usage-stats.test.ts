import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { STORE_KINDS } from '../helpers/test-store.js';
import { rollupFromEvents } from '../../src/statistics/usage-stats-recorder.js';
import { syntheticEvents } from '../../src/statistics/seed-usage-stats.js';
import { rawPercentileBucket } from '../../src/statistics/latency-histogram.js';
import { describeTotals, windowRange } from '../../src/statistics/rollup-queries.js';
import { UsageStatsService } from '../../src/statistics/usage-stats-service.js';
import type { UsageStatsEvent } from '../../src/statistics/usage-stats-event.js';
import type { Granularity } from '../../src/statistics/rollup-schema.js';

const NOW = Date.UTC(2025, 0, 15, 12, 30, 0);
const clock = { now: () => NOW };
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

const event = (overrides: Partial<UsageStatsEvent>): UsageStatsEvent => ({
  timestamp: NOW - MINUTE,
  modelId: 'test/chat',
  providerId: 'mock',
  userId: 'user-1',
  promptTokens: 10,
  completionTokens: 20,
  latencyMs: 100,
  ttftMs: 50,
  status: 200,
  ...overrides,
});

/** Ten requests in the last hour with known answers, one 3 hours ago, one 3 days ago. */
const knownEvents: UsageStatsEvent[] = [
  ...[100, 200, 300, 400, 500, 600, 700, 800].map((latencyMs, index) =>
    event({ latencyMs, timestamp: NOW - (index + 1) * MINUTE, userId: `user-${index % 3}` }),
  ),
  event({ status: 502, promptTokens: 0, completionTokens: 0, latencyMs: 30_000 }),
  event({ status: 400, promptTokens: 0, completionTokens: 0 }),
  event({ timestamp: NOW - 3 * HOUR, latencyMs: 2000, promptTokens: 1000, completionTokens: 1000 }),
  event({
    timestamp: NOW - 3 * DAY,
    latencyMs: 2000,
    promptTokens: 5000,
    completionTokens: 5000,
    modelId: 'test/other',
  }),
];

describe.each(STORE_KINDS)('usage statistics on %s', (storeKind) => {
  let gateway: TestGateway;
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${gateway.url}${path}`, { headers });
    return {
      status: response.status,
      headers: response.headers,
      body: response.status === 304 ? null : ((await response.json()) as any),
    };
  };

  beforeAll(async () => {
    const configText = testConfigText(
      'http://127.0.0.1:9/v1',
      `
  - id: test/other
    name: Other
    capabilities: [reasoning]
    endpoints:
      - provider: mock
        upstream_model: other
        pricing: { prompt: 1, completion: 2 }
`,
    )
      // The provider page reads back the operator's policies as written.
      .replace(
        '    api_key: upstream-secret\n',
        '    api_key: upstream-secret\n    policies: { data_retention: 30 days, training: false, regions: [eu, us] }\n',
      )
      // A configured provider that serves no model is not active: absent from the list and 404.
      .replace(
        '\nmodels:\n',
        '\n  - id: idle\n    name: Idle AI\n    type: openai\n    base_url: http://127.0.0.1:9/v1\n    api_key: idle-secret\nmodels:\n',
      );
    gateway = await startTestGateway({
      configText,
      storeKind,
      deps: { clock },
    });
    await rollupFromEvents(gateway.testStore.store, knownEvents);
  });
  afterAll(async () => gateway?.close());

  it('answers provider stats per window with known counts and percentiles', async () => {
    const hour = await get('/api-account/providers/mock/stats?window=1h');
    expect(hour.status).toBe(200);
    expect(hour.body.totals).toMatchObject({
      requests: 10,
      successes: 8,
      success_rate: 0.8,
      uptime: 0.9,
      prompt_tokens: 80,
      completion_tokens: 160,
      // Interpolated inside the histogram bucket (issue 28), no longer the bucket's upper edge (1000, 50, 50).
      latency_ms: { p50: 400, p95: 900 },
      ttft_ms: { p50: 37.5, p95: 48.8 },
    });
    expect(hour.body.buckets).toHaveLength(60);
    expect(hour.body.bucket_seconds).toBe(60);
    const day = await get('/api-account/providers/mock/stats');
    expect(day.body.window).toBe('24h');
    expect(day.body.totals).toMatchObject({ requests: 11, prompt_tokens: 1080 });
    expect(day.body.buckets).toHaveLength(24);
    const week = await get('/api-account/providers/mock/stats?window=7d');
    expect(week.body.totals).toMatchObject({ requests: 12, prompt_tokens: 6080 });
    expect(week.body.models.map((row: { model_id: string }) => row.model_id)).toEqual(['test/other', 'test/chat']);
  });

  it('answers 400 naming the param for a bad window, and 404 for an unknown provider', async () => {
    const bad = await get('/api-account/providers/mock/stats?window=2h');
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('window');
    const unknownParam = await get('/api-account/providers/mock/stats?windw=1h');
    expect(unknownParam.status).toBe(400);
    expect(unknownParam.body.error.param).toBe('windw');
    const missing = await get('/api-account/providers/nope/stats');
    expect(missing.status).toBe(404);
    expect(missing.body.error.type).toBe('not_found_error');
  });

  it('lists active providers with status from health, and a provider page with throughput and models', async () => {
    const list = await get('/api-account/providers');
    expect(list.body.data).toEqual([
      {
        id: 'mock',
        name: 'Mock AI',
        model_count: 2,
        input_modalities: ['image', 'text'],
        output_modalities: ['text'],
        status: 'degraded',
      },
    ]);
    expect(list.headers.get('cache-control')).toMatch(/max-age/);
    const detail = await get('/api-account/providers/mock');
    expect(detail.body.throughput_24h).toMatchObject({ requests: 11, prompt_tokens: 1080, completion_tokens: 1160 });
    expect(detail.body.models.map((model: { id: string }) => model.id)).toEqual(['test/chat', 'test/other']);
    expect(detail.body.policies).toEqual({ data_retention: '30 days', training: false, regions: ['eu', 'us'] });
  });

  it('leaves a configured provider that serves no model out of the list and its pages', async () => {
    const list = await get('/api-account/providers');
    expect(list.body.data.map((provider: { id: string }) => provider.id)).toEqual(['mock']);
    for (const path of ['/api-account/providers/idle', '/api-account/providers/idle/stats']) {
      const page = await get(path);
      expect(page.status).toBe(404);
      expect(page.body.error.code).toBe('provider_not_found');
    }
  });

  it('ranks models by tokens with the change against the previous window, and charts top N plus others', async () => {
    const board = await get('/rankings/models?window=week');
    expect(board.body.data.map((row: { model_id: string; tokens: number }) => [row.model_id, row.tokens])).toEqual([
      ['test/other', 10_000],
      ['test/chat', 2240],
    ]);
    expect(board.body.data[0].change).toBeNull();
    const day = await get('/api-account/rankings/models?window=day');
    expect(day.body.data).toHaveLength(1);
    const charts = await get('/rankings/charts?metric=tokens&top=1');
    expect(
      charts.body.series.map((series: { model_id: string; total: number }) => [series.model_id, series.total]),
    ).toEqual([
      ['test/other', 10_000],
      ['others', 2240],
    ]);
    expect(charts.body.series[0].points).toHaveLength(7);
    const users = await get('/rankings/charts?metric=users');
    expect(users.body.series.find((series: { model_id: string }) => series.model_id === 'test/chat').total).toBe(3);
    const badMetric = await get('/rankings/charts?metric=cost');
    expect(badMetric.status).toBe(400);
    expect(badMetric.body.error.param).toBe('metric');
    const missingMetric = await get('/api-account/rankings/charts');
    expect(missingMetric.body.error.param).toBe('metric');
    expect((await get('/rankings/models?window=year')).body.error.param).toBe('window');
    expect((await get('/rankings/speed?limit=0')).body.error.param).toBe('limit');
  });

  it('serves speed, benchmarks with sources, category leaders and provider share in /rankings/all', async () => {
    const all = await get('/api-account/rankings/all');
    expect(all.status).toBe(200);
    expect(all.body.speed.by_latency.map((row: { model_id: string }) => row.model_id)).toEqual(['test/chat']);
    expect(all.body.provider_share.data).toEqual([{ provider_id: 'mock', tokens: 12_240, requests: 12, share: 1 }]);
    expect(
      all.body.category_leaders.data.find((row: { category: string }) => row.category === 'reasoning').leader.model_id,
    ).toBe('test/other');
    for (const category of all.body.benchmarks.data)
      for (const benchmark of category.benchmarks)
        for (const score of benchmark.scores) {
          expect(score.source).toMatch(/^https:\/\//);
          expect(score.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        }
    const speed = await get('/api-account/rankings/speed');
    const etag = speed.headers.get('etag')!;
    expect((await get('/api-account/rankings/speed', { 'if-none-match': etag })).status).toBe(304);
  });

  it('rollups agree with a raw recount of 20,000 synthetic events at every granularity', async () => {
    // The same store as the known events above, under other providers (p1, p2), which it leaves out.
    const testStore = gateway.testStore;
    {
      const options = {
        events: 20_000,
        now: NOW,
        spanMs: 7 * DAY,
        models: ['a/one', 'b/two', 'c/three'],
        providers: ['p1', 'p2'],
        users: 50,
        seed: 7,
      };
      const events = [...syntheticEvents(options)];
      await rollupFromEvents(testStore.store, events.slice(0, 12_000));
      await rollupFromEvents(testStore.store, events.slice(12_000)); // two flushes add up
      const stats = new UsageStatsService(testStore.store, clock, 0);
      const cases: [Granularity, number][] = [
        ['minute', 60],
        ['hour', 24],
        ['day', 7],
      ];
      for (const [granularity, count] of cases) {
        const range = windowRange(NOW, granularity, count);
        const rows = (await stats.totals(granularity, count, ['provider_id', 'model_id'])).filter(
          (row) => row.providerId !== 'mock',
        );
        for (const row of rows) {
          const raw = events.filter(
            (item) =>
              item.timestamp >= range.from &&
              item.timestamp < range.to &&
              item.providerId === row.providerId &&
              item.modelId === row.modelId,
          );
          const answered = raw.filter((item) => item.status < 400);
          const described = describeTotals(row.totals);
          expect(described.requests).toBe(raw.length);
          expect(described.successes).toBe(answered.length);
          expect(described.prompt_tokens).toBe(raw.reduce((sum, item) => sum + item.promptTokens, 0));
          expect(described.completion_tokens).toBe(raw.reduce((sum, item) => sum + item.completionTokens, 0));
          expect(described.latency_ms.p50).toBe(
            rawPercentileBucket(
              answered.map((item) => item.latencyMs),
              0.5,
            ),
          );
          expect(described.latency_ms.p95).toBe(
            rawPercentileBucket(
              answered.map((item) => item.latencyMs),
              0.95,
            ),
          );
          expect(described.ttft_ms.p95).toBe(
            rawPercentileBucket(
              answered.map((item) => item.ttftMs!),
              0.95,
            ),
          );
        }
        const expectedPairs = new Set(
          events
            .filter((item) => item.timestamp >= range.from && item.timestamp < range.to)
            .map((item) => `${item.providerId}/${item.modelId}`),
        );
        expect(rows.length).toBe(expectedPairs.size);
      }
    }
  });
});

describe('traffic through the gateway shows up in the statistics', () => {
  let upstream: MockUpstream;
  let gateway: TestGateway;
  beforeAll(async () => {
    upstream = await startMockUpstream({ scenario: { chunkCount: 5 } });
    gateway = await startTestGateway({ configText: testConfigText(upstream.url) });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('counts completed requests, tokens and streams in provider stats and the leaderboard', async () => {
    for (const stream of [false, false, true]) {
      const response = await fetch(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'test/chat',
          stream,
          messages: [{ role: 'user', content: 'Say hello to the gateway' }],
        }),
      });
      expect(response.status).toBe(200);
      await response.text();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    await gateway.gateway.catalogFeatures.recorder.flush();
    const stats = (await (await fetch(`${gateway.url}/api-account/providers/mock/stats?window=1h`)).json()) as any;
    expect(stats.totals.requests).toBe(3);
    expect(stats.totals.successes).toBe(3);
    expect(stats.totals.prompt_tokens).toBe(15);
    expect(stats.totals.completion_tokens).toBe(15);
    const board = (await (await fetch(`${gateway.url}/rankings/models?window=day`)).json()) as any;
    expect(board.data[0]).toMatchObject({ model_id: 'test/chat', tokens: 30, requests: 3 });
  });
});

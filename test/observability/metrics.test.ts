import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { chat } from '../metering/metering-helpers.js';
import { parsePrometheusText, sumOf, type Sample } from '../helpers/prometheus-text.js';

/** "fail" in the prompt → the upstream answers 500; otherwise a stream of 7 chunks with usage. */
function scenarioFor(body: any) {
  const text = JSON.stringify(body?.messages ?? '');
  if (text.includes('fail')) return { failure: { kind: 'status' as const, status: 500 } };
  return { chunkCount: 7 };
}

async function scrape(url: string, init: RequestInit = {}): Promise<Sample[]> {
  const response = await fetch(url, init);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await response.text());
}

describe('/metrics after a mixed load', () => {
  let upstream: MockUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    upstream = await startMockUpstream({ scenario: scenarioFor });
    gateway = await startTestGateway({
      configText: testConfigText(upstream.url, 'routing:\n  retries: 0\n  backoff_base_ms: 1\n'),
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('shows request, token and cost counters that match the usage records', async () => {
    const limitedKey = await gateway.createKey({ rpmLimit: 1 });
    const statuses: number[] = [];
    const send = async (apiKey: string, body: Record<string, unknown>) => {
      const response = await chat(gateway.url, apiKey, body);
      await response.text();
      statuses.push(response.status);
    };
    for (let index = 0; index < 3; index++) await send(gateway.apiKey, {});
    for (let index = 0; index < 2; index++)
      await send(gateway.apiKey, { stream: true, stream_options: { include_usage: true } });
    await send(gateway.apiKey, { messages: [{ role: 'user', content: 'please fail' }] });
    await send(gateway.apiKey, { model: 'no/such-model' });
    await send(limitedKey, {});
    await send(limitedKey, {});
    expect(statuses.sort()).toEqual([200, 200, 200, 200, 200, 200, 404, 429, 502].sort());
    await gateway.gateway.metering!.flush();

    const samples = await scrape(`${gateway.url}/metrics`);
    const { rows } = await sql<{
      requests: number;
      prompt: number;
      completion: number;
      cost: number;
    }>`select count(*) as requests, coalesce(sum(prompt_tokens), 0) as prompt,
         coalesce(sum(completion_tokens), 0) as completion, coalesce(sum(cost_nanos), 0) as cost
       from usage_events`.execute(gateway.testStore.store.db);
    const usage = rows[0];
    expect(Number(usage.requests)).toBe(9);
    expect(Number(usage.cost)).toBeGreaterThan(0);

    expect(sumOf(samples, 'gateway_chat_requests_total')).toBe(Number(usage.requests));
    expect(sumOf(samples, 'gateway_tokens_total', { type: 'prompt' })).toBe(Number(usage.prompt));
    expect(sumOf(samples, 'gateway_tokens_total', { type: 'completion' })).toBe(Number(usage.completion));
    expect(sumOf(samples, 'gateway_cost_nano_usd_total')).toBe(Number(usage.cost));
    expect(sumOf(samples, 'gateway_cost_nano_usd_total', { model: 'test/chat', provider: 'mock' })).toBe(
      Number(usage.cost),
    );

    // By model, provider and status; requests that reached no model are labelled "none".
    expect(sumOf(samples, 'gateway_chat_requests_total', { model: 'test/chat', provider: 'mock', status: '200' })).toBe(
      6,
    );
    expect(sumOf(samples, 'gateway_chat_requests_total', { status: '200', streamed: 'true' })).toBe(2);
    expect(sumOf(samples, 'gateway_chat_requests_total', { model: 'none', status: '404' })).toBe(1);
    expect(sumOf(samples, 'gateway_chat_requests_total', { model: 'none', status: '429' })).toBe(1);
    expect(sumOf(samples, 'gateway_refusals_total', { reason: 'requests_per_minute_exceeded' })).toBe(1);
    expect(sumOf(samples, 'gateway_upstream_attempts_total', { provider: 'mock', status: '500' })).toBe(1);
    expect(sumOf(samples, 'gateway_upstream_attempts_total', { provider: 'mock', status: '200' })).toBe(6);

    // Histograms: one observation per served request, streams included.
    expect(sumOf(samples, 'gateway_chat_time_to_first_token_seconds_count', { model: 'test/chat' })).toBe(6);
    expect(sumOf(samples, 'gateway_upstream_latency_seconds_count', { provider: 'mock' })).toBe(7);
    expect(
      sumOf(samples, 'gateway_http_requests_total', { route: '/v1/chat/completions', method: 'POST', status: '200' }),
    ).toBe(6);
    expect(sumOf(samples, 'gateway_http_request_duration_seconds_count', { route: '/v1/chat/completions' })).toBe(9);

    // Scrape-time gauges and the process's own metrics.
    expect(samples).toContainEqual({
      name: 'gateway_circuit_breaker_state',
      labels: { provider: 'mock', upstream_model: 'mock-model' },
      value: 0,
    });
    expect(sumOf(samples, 'gateway_usage_backlog')).toBe(0);
    expect(samples.some((sample) => sample.name === 'process_cpu_user_seconds_total')).toBe(true);
    expect(samples.some((sample) => sample.name === 'nodejs_eventloop_lag_seconds')).toBe(true);
  });

  it('counts the scrape itself and unmatched routes without client text in labels', async () => {
    // POST: the web console answers unknown GET paths itself.
    await fetch(`${gateway.url}/no/such/path/${'x'.repeat(20)}`, { method: 'POST' });
    const samples = await scrape(`${gateway.url}/metrics`);
    expect(sumOf(samples, 'gateway_http_requests_total', { route: 'none', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(samples.some((sample) => Object.values(sample.labels).some((value) => value.includes('xxxx')))).toBe(false);
  });
});

describe('/metrics access settings', () => {
  let upstream: MockUpstream;
  beforeAll(async () => {
    upstream = await startMockUpstream();
  });
  afterAll(async () => {
    await upstream?.close();
  });

  it('asks for the bearer token when metrics.bearer_token is set', async () => {
    const gateway = await startTestGateway({
      configText: testConfigText(upstream.url, 'metrics:\n  bearer_token: scrape-secret\n'),
    });
    try {
      const refused = await fetch(`${gateway.url}/metrics`);
      expect(refused.status).toBe(401);
      expect((await refused.json()).error.code).toBe('invalid_metrics_token');
      const wrong = await fetch(`${gateway.url}/metrics`, { headers: { authorization: 'Bearer scrape-secreT' } });
      expect(wrong.status).toBe(401);
      const samples = await scrape(`${gateway.url}/metrics`, { headers: { authorization: 'Bearer scrape-secret' } });
      expect(samples.some((sample) => sample.name === 'gateway_http_requests_total')).toBe(true);
    } finally {
      await gateway.close();
    }
  });

  it('serves metrics only on the admin port when metrics.port is set, and not at all when disabled', async () => {
    const admin = await startTestGateway({
      configText: testConfigText(upstream.url, 'metrics:\n  port: 0\n  host: 127.0.0.1\n'),
    });
    try {
      expect((await fetch(`${admin.url}/metrics`)).status).toBe(404);
      const adminUrl = await admin.gateway.observability.startAdminServer();
      expect(adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect(adminUrl).not.toContain(admin.url);
      const samples = await scrape(adminUrl!);
      expect(samples.some((sample) => sample.name === 'gateway_chat_requests_total')).toBe(false);
      expect(samples.some((sample) => sample.name === 'gateway_usage_backlog')).toBe(true);
    } finally {
      await admin.close();
    }
    const off = await startTestGateway({ configText: testConfigText(upstream.url, 'metrics:\n  enabled: false\n') });
    try {
      expect((await fetch(`${off.url}/metrics`)).status).toBe(404);
      expect(off.gateway.observability.metrics).toBeNull();
    } finally {
      await off.close();
    }
  });
});

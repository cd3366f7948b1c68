import { afterEach, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { randomId } from '../../src/shared/ids.js';
import { chat } from './metering-helpers.js';
import { openRedis } from '../../src/store/open-redis.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('per-key limits', () => {
  let upstream: MockUpstream | undefined;
  let instances: TestGateway[] = [];
  afterEach(async () => {
    for (const instance of instances.reverse()) await instance.close();
    instances = [];
    await upstream?.close();
  });

  async function twoInstances(): Promise<[TestGateway, TestGateway]> {
    upstream = await startMockUpstream({ scenario: { chunkCount: 20 } });
    const redis = { redis: openRedis(REDIS_URL), redisKeyPrefix: `test:${randomId(10)}:` };
    const first = await startTestGateway({
      configText: testConfigText(upstream.url),
      storeKind: 'postgres',
      deps: redis,
    });
    const second = await startTestGateway({
      configText: testConfigText(upstream.url),
      testStore: first.testStore,
      deps: redis,
    });
    instances.push(first, second);
    return [first, second];
  }

  it('enforces rpm across two instances on PostgreSQL + Redis, with Retry-After and x-ratelimit headers', async () => {
    const [first, second] = await twoInstances();
    const key = await first.createKey({ rpmLimit: 3 });
    const responses: Response[] = [];
    for (let index = 0; index < 6; index++) {
      const response = await chat((index % 2 ? second : first).url, key, { stream: index === 2 });
      await response.text();
      responses.push(response);
    }
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 429, 429, 429]);
    expect(responses[0].headers.get('x-ratelimit-limit-requests')).toBe('3');
    expect(responses[0].headers.get('x-ratelimit-remaining-requests')).toBe('2');
    expect(responses[2].headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(responses[2].headers.get('content-type')).toMatch(/event-stream/);
    const refused = responses[3];
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(19);
    expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(refused.headers.get('x-ratelimit-reset-requests')).toMatch(/^\d+(\.\d+)?s$|^1m/);
    const again = await chat(second.url, key, {});
    expect(await again.json()).toMatchObject({
      error: { type: 'rate_limit_error', code: 'requests_per_minute_exceeded' },
    });
  }, 60_000);

  it('enforces tpm across two instances, counting the tokens actually used', async () => {
    const [first, second] = await twoInstances();
    // Each request uses 2 prompt + 10 completion tokens; 60 per minute admits five.
    const key = await first.createKey({ tpmLimit: 60 });
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let index = 0; index < 7; index++) {
      const response = await chat((index % 2 ? second : first).url, key, { max_tokens: 10 });
      await response.text();
      statuses.push(response.status);
      if (response.status === 429) refused ??= response;
      if (index === 0) expect(response.headers.get('x-ratelimit-limit-tokens')).toBe('60');
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(refused!.headers.get('x-ratelimit-remaining-tokens')).toBe('0');
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it('refuses a key over its monthly quota or credit limit with 403 before sending', async () => {
    upstream = await startMockUpstream({ scenario: { chunkCount: 20 } });
    const gateway = await startTestGateway({ configText: testConfigText(upstream.url) });
    instances.push(gateway);
    const flush = () => gateway.gateway.metering!.flush();
    // Each request costs 16,000 nano-USD = 16 micro-USD.
    const quotaKey = await gateway.createKey({ monthlyQuotaMicros: 20 });
    expect((await chat(gateway.url, quotaKey, { max_tokens: 10 })).status).toBe(200);
    await flush();
    expect((await chat(gateway.url, quotaKey, { max_tokens: 10 })).status).toBe(200);
    await flush();
    const sentBefore = upstream.requests.length;
    const overQuota = await chat(gateway.url, quotaKey, { max_tokens: 10 });
    expect(overQuota.status).toBe(403);
    expect(await overQuota.json()).toMatchObject({ error: { type: 'permission_error', code: 'quota_exceeded' } });
    expect(upstream.requests.length).toBe(sentBefore);

    const limitedKey = await gateway.createKey({ creditLimitMicros: 10 });
    expect((await chat(gateway.url, limitedKey, { max_tokens: 10 })).status).toBe(200);
    await flush();
    const overLimit = await chat(gateway.url, limitedKey, { max_tokens: 10 });
    expect(overLimit.status).toBe(403);
    expect(await overLimit.json()).toMatchObject({ error: { code: 'credit_limit_exceeded' } });
  }, 60_000);

  it('with Redis down: fail-closed refuses with 503, fail-open enforces per instance and logs', async () => {
    upstream = await startMockUpstream({ scenario: { chunkCount: 5 } });
    const redis = { redis: openRedis('redis://127.0.0.1:1'), redisKeyPrefix: 'unreachable:' };
    const closed = await startTestGateway({
      configText: testConfigText(upstream.url, 'limits:\n  redis_failure_mode: closed\n'),
      deps: redis,
    });
    instances.push(closed);
    const closedKey = await closed.createKey({ rpmLimit: 5 });
    const refused = await chat(closed.url, closedKey, {});
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ error: { code: 'limits_unavailable' } });
    // A key without limits needs no Redis and is served.
    expect((await chat(closed.url, closed.apiKey, {})).status).toBe(200);

    const open = await startTestGateway({ configText: testConfigText(upstream.url), deps: redis });
    instances.push(open);
    const openKey = await open.createKey({ rpmLimit: 1 });
    expect((await chat(open.url, openKey, {})).status).toBe(200);
    expect((await chat(open.url, openKey, {})).status).toBe(429);
    expect(open.logs.join('')).toMatch(/fail-open/);
  }, 60_000);
});

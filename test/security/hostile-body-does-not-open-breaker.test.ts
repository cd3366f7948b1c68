import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { openRedis } from '../../src/store/open-redis.js';
import { RedisEndpointHealth } from '../../src/routing/redis-endpoint-health.js';
import { systemClock } from '../../src/shared/clock.js';
import { startFakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';

/*
 * Issue 16, finding 3: a body the gateway could not serialise (20,000 nested arrays in an extra
 * field → "Maximum call stack size exceeded") was counted as the provider's failure and opened the
 * shared breaker for everyone. Bodies are now bounded in depth before routing, and only failures
 * the upstream caused move a breaker. Real PostgreSQL store, breakers in the shared Redis under a
 * key prefix of this test's own.
 */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const BREAKER = 'routing:\n  retries: 0\n  circuit_breaker: { failure_threshold: 1, cooldown_ms: 30000 }\n';
const ENDPOINT = 'mock:mock-model';
const answer = {
  body: JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'mock-model',
    choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  }),
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(serverSettings = '') {
  const upstream = await startFakeUpstream();
  upstream.answer(answer);
  cleanups.push(() => upstream.close());
  const prefix = `test:${randomUUID()}:`;
  const redis: Redis = openRedis(REDIS_URL);
  cleanups.push(async () => redis.disconnect());
  const gateway = await startTestGateway({
    configText: testConfigText(upstream.url, BREAKER).replace(
      'server:\n',
      `server:\n${serverSettings ? `  ${serverSettings}\n` : ''}`,
    ),
    storeKind: 'postgres',
    deps: { redis, redisKeyPrefix: prefix },
  });
  cleanups.push(() => gateway.close());
  const inspector = new RedisEndpointHealth(
    openRedis(REDIS_URL),
    { failureThreshold: 1, cooldownMs: 30_000 },
    systemClock,
    { keyPrefix: prefix },
  );
  cleanups.push(() => inspector.close());
  return { upstream, gateway, breakerState: async () => (await inspector.inspect([ENDPOINT]))[0] };
}

function chat(gateway: TestGateway, body: string) {
  return fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` },
    body,
  });
}

function nested(depth: number): string {
  return `{"model":"test/chat","messages":[{"role":"user","content":"hi"}],"extra":${'['.repeat(depth)}${']'.repeat(depth)}}`;
}

describe('finding 3: a hostile body cannot take a provider offline', () => {
  it('20,000 nested arrays in an extra field: 400 naming the limit, the upstream never called, the breaker unchanged', async () => {
    const { upstream, gateway, breakerState } = await setUp();
    const before = await breakerState();

    const response = await chat(gateway, nested(20_000));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'json_too_deep' });
    expect(body.error.message).toMatch(/64 levels deep \(server\.max_json_depth\)/);
    expect(upstream.requests).toHaveLength(0);
    expect(await breakerState()).toEqual(before);
    expect(before).toEqual({ failures: 0, openUntil: 0, probeUntil: 0 });

    // With a failure threshold of 1, one counted failure would have opened it: the next request is served.
    const ok = await chat(gateway, JSON.stringify({ model: 'test/chat', messages: [{ role: 'user', content: 'hi' }] }));
    expect(ok.status).toBe(200);
    expect(upstream.requests).toHaveLength(1);
  });

  it('a body within a raised limit that the gateway still cannot serialise: 500, and no breaker moves', async () => {
    const { upstream, gateway, breakerState } = await setUp('max_json_depth: 10000');
    // Parses and validates, then overflows the stack while the provider request is built.
    const response = await chat(gateway, nested(9_000));
    expect(response.status).toBe(500);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('internal_error');
    expect(upstream.requests).toHaveLength(0);
    expect(await breakerState()).toEqual({ failures: 0, openUntil: 0, probeUntil: 0 });
    const ok = await chat(gateway, JSON.stringify({ model: 'test/chat', messages: [{ role: 'user', content: 'hi' }] }));
    expect(ok.status).toBe(200);
  });

  it('a body above server.body_limit_bytes is refused 413 naming the limit', async () => {
    const { upstream, gateway } = await setUp();
    const response = await chat(
      gateway,
      JSON.stringify({ model: 'test/chat', messages: [{ role: 'user', content: 'x'.repeat(70_000) }] }),
    );
    expect(response.status).toBe(413);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('payload_too_large');
    expect(body.error.message).toMatch(/65536 bytes/);
    expect(upstream.requests).toHaveLength(0);
  });
});

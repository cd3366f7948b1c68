import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisEndpointHealth } from '../../src/routing/redis-endpoint-health.js';
import { startTestGateway } from '../helpers/test-gateway.js';
import { hello, routingConfigText, startRoutingHarness, type RoutingHarness } from './routing-test-setup.js';
import OpenAI from 'openai';
import { openRedis } from '../../src/store/open-redis.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const breaker = '  circuit_breaker: { failure_threshold: 2, cooldown_ms: 30000 }\n  retries: 0';

/** A clock the test moves by hand; the gateway reads it for the breaker (and everything else). */
function fakeClock() {
  let time = Date.now();
  return { now: () => time, advance: (milliseconds: number) => (time += milliseconds) };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function ask(harness: RoutingHarness, client = harness.client) {
  const { response } = await client.chat.completions.create({ model: 'test/multi', messages: hello }).withResponse();
  return { provider: response.headers.get('x-gateway-provider'), attempts: response.headers.get('x-gateway-attempts') };
}

describe('circuit breaker through the gateway (fake clock)', () => {
  it('opens after repeated failures (the endpoint is skipped), half-opens after the cool-down, and recovers', async () => {
    const clock = fakeClock();
    const harness = await startRoutingHarness(breaker, { clock });
    cleanups.push(() => harness.close());
    harness.bad.setScenario({ failure: { kind: 'status', status: 500 } });

    expect(await ask(harness)).toEqual({ provider: 'good', attempts: '2' });
    expect(await ask(harness)).toEqual({ provider: 'good', attempts: '2' });
    // Open: the failing endpoint is not even called.
    expect(await ask(harness)).toEqual({ provider: 'good', attempts: '1' });
    expect(harness.bad.requests).toHaveLength(2);

    // Cool-down over, upstream repaired: one probe goes to it and closes the circuit.
    harness.bad.setScenario({});
    clock.advance(30_000);
    expect(await ask(harness)).toEqual({ provider: 'bad', attempts: '1' });
    expect(await ask(harness)).toEqual({ provider: 'bad', attempts: '1' });
    expect(harness.bad.requests).toHaveLength(4);
  });

  it('a failed probe keeps it open for another cool-down', async () => {
    const clock = fakeClock();
    const harness = await startRoutingHarness(breaker, { clock });
    cleanups.push(() => harness.close());
    harness.bad.setScenario({ failure: { kind: 'status', status: 500 } });
    await ask(harness);
    await ask(harness);
    clock.advance(30_000);
    expect(await ask(harness)).toEqual({ provider: 'good', attempts: '2' });
    expect(await ask(harness)).toEqual({ provider: 'good', attempts: '1' });
    expect(harness.bad.requests).toHaveLength(3);
  });

  it('every endpoint open: a 503 with retry-after, without calling any upstream', async () => {
    const clock = fakeClock();
    const harness = await startRoutingHarness(breaker, { clock });
    cleanups.push(() => harness.close());
    harness.bad.setScenario({ failure: { kind: 'status', status: 500 } });
    for (let index = 0; index < 2; index++)
      await harness.client.chat.completions.create({ model: 'test/bad-only', messages: hello }).catch(() => undefined);
    const response = await fetch(`${harness.gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${harness.gateway.apiKey}` },
      body: JSON.stringify({ model: 'test/bad-only', messages: hello }),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('30');
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('endpoints_unavailable');
    expect(harness.bad.requests).toHaveLength(2);
  });

  it('with Redis, two gateway instances share one breaker per endpoint', async () => {
    const clock = fakeClock();
    const prefix = `test:${randomUUID()}:`;
    const settings = { failureThreshold: 2, cooldownMs: 30_000 };
    const healthA = new RedisEndpointHealth(openRedis(REDIS_URL), settings, clock, { keyPrefix: prefix });
    const healthB = new RedisEndpointHealth(openRedis(REDIS_URL), settings, clock, { keyPrefix: prefix });
    const first = await startRoutingHarness(breaker, { clock, routing: { overrides: { health: healthA } } });
    cleanups.push(() => first.close());
    // The second instance: same store, same upstreams, its own process state.
    const second = await startTestGateway({
      configText: routingConfigText(first.bad.url, first.good.url, breaker),
      testStore: first.gateway.testStore,
      deps: { clock, routing: { overrides: { health: healthB } } },
    });
    cleanups.push(() => second.close());
    const secondClient = new OpenAI({ apiKey: first.gateway.apiKey, baseURL: second.baseURL, maxRetries: 0 });

    first.bad.setScenario({ failure: { kind: 'status', status: 500 } });
    await ask(first);
    await ask(first);
    // Opened by the first instance; the second skips the endpoint without having seen a failure.
    expect(await ask(first, secondClient)).toEqual({ provider: 'good', attempts: '1' });
    expect(first.bad.requests).toHaveLength(2);
  });
});

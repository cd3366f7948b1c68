import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryEndpointHealth, type EndpointHealth } from './circuit-breaker.js';
import { RedisEndpointHealth } from './redis-endpoint-health.js';
import { openRedis } from '../store/open-redis.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const settings = { failureThreshold: 3, cooldownMs: 10_000 };

class FakeClock {
  time = 1_700_000_000_000;
  now = () => this.time;
  advance(milliseconds: number) {
    this.time += milliseconds;
  }
}

const opened: EndpointHealth[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((health) => health.close()));
});

type Make = (clock: FakeClock, prefix: string) => Promise<EndpointHealth>;
const kinds: Array<[string, Make]> = [
  ['memory', async (clock) => new MemoryEndpointHealth(settings, clock)],
  [
    'redis',
    async (clock, prefix) => {
      // The installation's client queues nothing while connecting: start from a connected breaker.
      const health = new RedisEndpointHealth(openRedis(REDIS_URL), settings, clock, { keyPrefix: prefix });
      await health.ready();
      return health;
    },
  ],
];

describe.each(kinds)('circuit breaker (%s)', (kind, make) => {
  const build = async (clock = new FakeClock(), prefix = `test:${randomUUID()}:`) => {
    const health = await make(clock, prefix);
    opened.push(health);
    return { health, clock, prefix };
  };

  it('stays closed below the threshold; a success resets the count', async () => {
    const { health } = await build();
    await health.recordFailure('e');
    await health.recordFailure('e');
    await health.recordSuccess('e');
    await health.recordFailure('e');
    await health.recordFailure('e');
    expect(await health.admit('e')).toEqual({ admitted: true, probe: false, retryAtMs: null });
  });

  it('opens after repeated failures, lets one probe through after the cool-down, and recovers on success', async () => {
    const { health, clock } = await build();
    for (let index = 0; index < 3; index++) await health.recordFailure('e');
    const openedAt = clock.now();
    expect(await health.admit('e')).toEqual({ admitted: false, probe: false, retryAtMs: openedAt + 10_000 });
    expect((await health.admit('other')).admitted).toBe(true);

    clock.advance(9_999);
    expect((await health.admit('e')).admitted).toBe(false);
    clock.advance(1);
    // Half-open: exactly one probe at a time.
    expect(await health.admit('e')).toEqual({ admitted: true, probe: true, retryAtMs: null });
    expect((await health.admit('e')).admitted).toBe(false);

    await health.recordSuccess('e');
    expect(await health.admit('e')).toEqual({ admitted: true, probe: false, retryAtMs: null });
  });

  it('a failed probe opens the circuit for another cool-down', async () => {
    const { health, clock } = await build();
    for (let index = 0; index < 3; index++) await health.recordFailure('e');
    clock.advance(10_000);
    expect((await health.admit('e')).probe).toBe(true);
    await health.recordFailure('e');
    expect(await health.admit('e')).toEqual({ admitted: false, probe: false, retryAtMs: clock.now() + 10_000 });
    clock.advance(10_000);
    expect((await health.admit('e')).probe).toBe(true);
  });

  it('a probe that never reports stops blocking after another cool-down', async () => {
    const { health, clock } = await build();
    for (let index = 0; index < 3; index++) await health.recordFailure('e');
    clock.advance(10_000);
    expect((await health.admit('e')).probe).toBe(true);
    clock.advance(5_000);
    expect((await health.admit('e')).admitted).toBe(false);
    clock.advance(5_000);
    expect((await health.admit('e')).probe).toBe(true);
  });

  if (kind === 'redis') {
    it('is shared by two instances on the same Redis (one gateway opens it, the other sees it)', async () => {
      const clock = new FakeClock();
      const prefix = `test:${randomUUID()}:`;
      const first = (await build(clock, prefix)).health;
      const second = (await build(clock, prefix)).health;
      await first.recordFailure('e');
      await second.recordFailure('e');
      await first.recordFailure('e');
      expect((await second.admit('e')).admitted).toBe(false);
      clock.advance(10_000);
      expect((await first.admit('e')).probe).toBe(true);
      // The probe is in flight on the first instance: the second must not send another.
      expect((await second.admit('e')).admitted).toBe(false);
      await first.recordSuccess('e');
      expect((await second.admit('e')).admitted).toBe(true);
    });

    it('an instance that admitted from its closed snapshot learns of failures elsewhere, and resets them on success', async () => {
      const clock = new FakeClock();
      const prefix = `test:${randomUUID()}:`;
      const first = (await build(clock, prefix)).health;
      const second = (await build(clock, prefix)).health;
      // The first instance sees the breaker closed, then keeps admitting from memory.
      await waitFor(async () => (await first.admit('e')).admitted && (await first.admit('e')).admitted);
      await second.recordFailure('e');
      await second.recordFailure('e');
      // Its success must reset the failures the second instance counted (announced on the channel).
      await waitFor(async () => {
        await first.recordSuccess('e');
        await second.recordFailure('e');
        return (await second.admit('e')).admitted;
      });
      for (let index = 0; index < 3; index++) await second.recordFailure('e');
      // Opened by the second instance: the first stops admitting once the announcement arrives.
      await waitFor(async () => !(await first.admit('e')).admitted);
      expect(await first.admit('e')).toEqual({ admitted: false, probe: false, retryAtMs: clock.now() + 10_000 });
    });
  }
});

/** Retries a check until it holds: pub/sub delivery is asynchronous (no timing assumed, up to 5 s). */
async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('condition never held');
}

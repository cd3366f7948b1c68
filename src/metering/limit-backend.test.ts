import { afterEach, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createLogger } from '../shared/logger.js';
import { randomId } from '../shared/ids.js';
import type { Hold, LimitBackend } from './limit-backend.js';
import { MemoryLimitBackend } from './memory-limit-backend.js';
import { RedisLimitBackend } from './redis-limit-backend.js';
import { LimitsUnavailableError, ResilientLimitBackend } from './resilient-limit-backend.js';
import { openRedis } from '../store/open-redis.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const backends: Record<string, () => Promise<LimitBackend[]>> = {
  memory: async () => {
    const shared = new MemoryLimitBackend();
    return [shared, shared];
  },
  // Two clients on one prefix stand for two gateway instances.
  redis: async () => {
    const prefix = `test:${randomId(10)}:`;
    const first = new RedisLimitBackend(openRedis(REDIS_URL), prefix);
    const second = new RedisLimitBackend(openRedis(REDIS_URL), prefix);
    await Promise.all([first.ready(), second.ready()]);
    return [first, second];
  },
};

const hold = (id: string, amount: number, extra: Partial<Hold> = {}): Hold => ({
  id,
  userId: 'user-1',
  keyId: 'key-1',
  amount,
  expiresAt: 10_000_000,
  trackUser: true,
  trackKey: true,
  ...extra,
});

describe.each(Object.keys(backends))('limit backend: %s', (name) => {
  let opened: LimitBackend[] = [];
  afterEach(async () => {
    await Promise.all([...new Set(opened)].map((backend) => backend.close()));
    opened = [];
  });

  it('enforces rpm across instances and reports what is left', async () => {
    opened = await backends[name]();
    const [first, second] = opened;
    const limits = { rpmLimit: 4, tpmLimit: null };
    const results = [];
    for (let index = 0; index < 6; index++)
      results.push(await (index % 2 ? second : first).checkRate('key-1', limits, 0, 1_000_000));
    expect(results.map((result) => result.allowed)).toEqual([true, true, true, true, false, false]);
    expect(results[3].requests).toEqual({ limit: 4, remaining: 0, resetMs: 60_000 });
    expect(results[4]).toMatchObject({ refusedBy: 'requests', retryAfterMs: 15_000 });
    expect((await first.checkRate('key-1', limits, 0, 1_015_000)).allowed).toBe(true);
  });

  it('enforces tpm with corrections after the request', async () => {
    opened = await backends[name]();
    const [first, second] = opened;
    const limits = { rpmLimit: null, tpmLimit: 1000 };
    expect((await first.checkRate('key-2', limits, 600, 0)).tokens?.remaining).toBe(400);
    await second.adjustTokens('key-2', limits, 300, 0);
    const refused = await second.checkRate('key-2', limits, 200, 0);
    expect(refused).toMatchObject({ allowed: false, refusedBy: 'tokens', tokens: { limit: 1000, remaining: 100 } });
    expect(refused.retryAfterMs).toBe(6000);
    await first.adjustTokens('key-2', limits, -500, 0);
    expect((await first.checkRate('key-2', limits, 200, 0)).allowed).toBe(true);
  });

  it('admits holds while balance − open holds covers them, across instances, and frees them on release', async () => {
    opened = await backends[name]();
    const [first, second] = opened;
    const limits = { userBalance: 1000, keyMonthRemaining: null, keyLifetimeRemaining: null };
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, index) => (index % 2 ? second : first).reserve(hold(`h${index}`, 300), limits, 0)),
    );
    expect(outcomes.filter((outcome) => outcome === 'held')).toHaveLength(3);
    expect(outcomes.filter((outcome) => outcome === 'insufficient_credits')).toHaveLength(7);
    expect(await first.heldForUser('user-1', 0)).toBe(900);
    const heldIds = outcomes.flatMap((outcome, index) => (outcome === 'held' ? [`h${index}`] : []));
    await second.release(hold(heldIds[0], 300));
    expect(await first.heldForUser('user-1', 0)).toBe(600);
    expect(await first.reserve(hold('late', 300), limits, 0)).toBe('held');
    // Expired holds (a crashed instance's) stop counting.
    expect(await first.heldForUser('user-1', 20_000_000)).toBe(0);
  });

  it('refuses a key over its monthly quota or credit limit counting open holds', async () => {
    opened = await backends[name]();
    const [first] = opened;
    const only = { trackUser: false };
    expect(
      await first.reserve(
        hold('a', 70, only),
        { userBalance: null, keyMonthRemaining: 100, keyLifetimeRemaining: null },
        0,
      ),
    ).toBe('held');
    expect(
      await first.reserve(
        hold('b', 70, only),
        { userBalance: null, keyMonthRemaining: 100, keyLifetimeRemaining: null },
        0,
      ),
    ).toBe('held');
    expect(
      await first.reserve(
        hold('c', 70, only),
        { userBalance: null, keyMonthRemaining: 100, keyLifetimeRemaining: null },
        0,
      ),
    ).toBe('quota_exceeded');
    expect(
      await first.reserve(
        hold('d', 1, only),
        { userBalance: null, keyMonthRemaining: null, keyLifetimeRemaining: 0 },
        0,
      ),
    ).toBe('credit_limit_exceeded');
  });
});

describe('Redis failures', () => {
  const silentLogger = () => {
    const lines: string[] = [];
    const logger = createLogger(
      'warn',
      new Writable({ write: (chunk, _encoding, callback) => (lines.push(String(chunk)), callback()) }),
    );
    return { logger, lines };
  };

  it('fail-open checks against memory and logs; fail-closed refuses with 503', async () => {
    const unreachable = new RedisLimitBackend(openRedis('redis://127.0.0.1:1'), 'x:', { commandTimeoutMs: 200 });
    const open = silentLogger();
    const failOpen = new ResilientLimitBackend(unreachable, 'open', open.logger, { now: () => Date.now() });
    const limits = { rpmLimit: 1, tpmLimit: null };
    expect((await failOpen.checkRate('k', limits, 0, 0)).allowed).toBe(true);
    expect((await failOpen.checkRate('k', limits, 0, 0)).allowed).toBe(false);
    expect(
      await failOpen.reserve(hold('a', 5), { userBalance: 10, keyMonthRemaining: null, keyLifetimeRemaining: null }, 0),
    ).toBe('held');
    expect(
      await failOpen.reserve(hold('b', 6), { userBalance: 10, keyMonthRemaining: null, keyLifetimeRemaining: null }, 0),
    ).toBe('insufficient_credits');
    expect(open.lines.join('')).toMatch(/fail-open/);

    const closed = silentLogger();
    const failClosed = new ResilientLimitBackend(unreachable, 'closed', closed.logger, { now: () => Date.now() });
    await expect(failClosed.checkRate('k', limits, 0, 0)).rejects.toBeInstanceOf(LimitsUnavailableError);
    await expect(
      failClosed.reserve(hold('c', 1), { userBalance: 10, keyMonthRemaining: null, keyLifetimeRemaining: null }, 0),
    ).rejects.toMatchObject({ status: 503, code: 'limits_unavailable' });
    expect(closed.lines.join('')).toMatch(/fail-closed/);
    await unreachable.close();
  });
});

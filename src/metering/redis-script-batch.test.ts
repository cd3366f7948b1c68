import { afterAll, describe, expect, it } from 'vitest';
import { randomId } from '../shared/ids.js';
import { openRedis } from '../store/open-redis.js';
import { openRedisClient, type RedisClient } from '../store/redis-client.js';
import {
  LOADED_MACHINE_TIMEOUTS,
  startOwnRedisCluster,
  type OwnRedisCluster,
} from '../../test/helpers/own-redis-cluster.js';
import type { CounterSource } from './counter-source.js';
import type { AdmissionCheck, Hold, Settlement } from './hot-counters.js';
import { monthOf } from './key-spend.js';
import { RedisHotCounters } from './redis-hot-counters.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const NOW = Date.UTC(2026, 10, 26, 12);
/** Every user's balance as the store has it: room for exactly 7 holds of 100. */
const BALANCE = 700;

const source: CounterSource = {
  balance: async () => ({ balance: BALANCE, lastEntryId: 0 }),
  lastEntryId: async () => 0,
  entriesAfter: async () => [],
  keySpend: async () => ({ month: null, monthSpend: 0, totalSpend: 0 }),
};

const hold = (id: string, userId: string): Hold => ({
  id,
  userId,
  keyId: `key-of-${userId}`,
  amount: 100,
  expiresAt: NOW + 60_000,
  trackUser: true,
  trackKey: true,
});

const check = (held: Hold): AdmissionCheck => ({
  keyId: held.keyId!,
  userId: held.userId,
  rate: { limits: { rpmLimit: 1_000, tpmLimit: 0 }, tokens: 0 },
  hold: held,
  monthlyQuota: null,
  lifetimeLimit: null,
  now: NOW,
});

const settlement = (held: Hold, charge: number): Settlement => ({
  hold: held,
  userId: held.userId,
  keyId: held.keyId,
  charge,
  keySpend: charge,
  month: monthOf(NOW),
  tokens: null,
  // The record is carried to the stream as is; its shape is the stream writer's business.
  record: { event: { id: held.id }, charge: true } as unknown as Settlement['record'],
  now: NOW,
});

/** Calls made in one turn of the event loop (one callback), as a busy gateway makes them. */
function inOneTurn<T>(calls: () => Array<Promise<T>>): Promise<Array<PromiseSettledResult<T>>> {
  return new Promise((resolve) => setImmediate(() => void Promise.allSettled(calls()).then(resolve)));
}

/** Loads the users' and their keys' counters (an admission released at once). */
async function loaded(hot: RedisHotCounters, ...userIds: string[]): Promise<void> {
  for (const userId of userIds) {
    const held = hold(`usage_warm_${userId}`, userId);
    expect((await hot.admit(check(held))).hold).toBe('held');
    await hot.releaseHold(held, NOW);
  }
}

let cluster: Promise<OwnRedisCluster> | undefined;
afterAll(async () => {
  await (await cluster)?.stop();
}, 30_000);

const clients: Record<string, () => Promise<RedisClient>> = {
  redis: async () => openRedis(REDIS_URL),
  'redis cluster': async () =>
    openRedisClient((await (cluster ??= startOwnRedisCluster())).url, LOADED_MACHINE_TIMEOUTS),
};

describe.each(Object.keys(clients))('admissions and settlements of one turn in one script call (%s)', (kind) => {
  async function counters(): Promise<{ counters: RedisHotCounters; close(): Promise<void> }> {
    const base = await clients[kind]!();
    const counters = new RedisHotCounters(base, source, { prefix: `test:${randomId(10)}:` });
    await counters.ready();
    return {
      counters,
      async close() {
        await counters.close();
        base.disconnect();
      },
    };
  }

  it('decides each admission as separate calls would: the balance covers 7 of 12, each request gets its own answer', async () => {
    const { counters: hot, close } = await counters();
    try {
      // Loaded first (a load is its own round trip), so the calls below meet loaded counters.
      // Another user's requests in the same turn: on a cluster they may be another shard's call.
      await loaded(hot, 'user-a', 'user-b');
      const holds = Array.from({ length: 12 }, (_, index) => hold(`usage_a${index}`, 'user-a'));
      const others = Array.from({ length: 3 }, (_, index) => hold(`usage_b${index}`, 'user-b'));
      const sentBefore = { ...hot.batcher.sent };
      const decided = await inOneTurn(() => [...holds, ...others].map((held) => hot.admit(check(held))));
      const outcomes = decided.map((result) => (result.status === 'fulfilled' ? result.value.hold : 'failed'));
      // In order, as pipelined calls would run: the first seven are held, the rest refused.
      expect(outcomes).toEqual([
        ...Array(7).fill('held'),
        ...Array(5).fill('insufficient_credits'),
        'held',
        'held',
        'held',
      ]);
      for (const result of decided)
        if (result.status === 'fulfilled') expect(result.value.rate?.requests?.limit).toBe(1_000);
      // Fifteen calls: the first left at once (nothing in flight), the rest together at the turn's end.
      expect(hot.batcher.sent.calls - sentBefore.calls).toBe(15);
      expect(hot.batcher.sent.commands - sentBefore.commands).toBeLessThanOrEqual(kind === 'redis' ? 2 : 3);
      expect(await hot.balance('user-a', NOW)).toEqual({ balance: BALANCE, held: 700 });

      // Settled together: each charge once, each hold released, every record in the stream.
      const charged = holds.slice(0, 7);
      const settled = await inOneTurn(() =>
        [...charged, ...others].map((held, index) => hot.settleFromLease(settlement(held, 10 + index))),
      );
      expect(settled.every((result) => result.status === 'fulfilled')).toBe(true);
      // Each its own entry (ids are per stream: one stream per shard).
      const entries = settled.map((result) =>
        result.status === 'fulfilled' ? `${result.value.shard}/${result.value.entryId}` : '',
      );
      expect(new Set(entries).size).toBe(10);
      const charges = [10, 11, 12, 13, 14, 15, 16].reduce((sum, charge) => sum + charge, 0);
      expect(await hot.balance('user-a', NOW)).toEqual({ balance: BALANCE - charges, held: 0 });
      expect(await hot.balance('user-b', NOW)).toEqual({ balance: BALANCE - (17 + 18 + 19), held: 0 });
      expect(await hot.unwrittenSettlements()).toBe(10);
    } finally {
      await close();
    }
  });

  it('a call that fails in Redis fails alone: the others of its batch are answered', async () => {
    const { counters: hot, close } = await counters();
    try {
      await loaded(hot, 'user-a', 'user-c');
      // user-c's holds are not a hash: its admission's HSET fails with WRONGTYPE inside the script.
      await hot.redis.set(hot.keys.user(hot.keys.shardOf('user-c'), 'user-c').userHolds, 'not a hash');
      const holds = [hold('usage_1', 'user-a'), hold('usage_2', 'user-c'), hold('usage_3', 'user-a')];
      const decided = await inOneTurn(() => holds.map((held) => hot.admit(check(held))));
      expect(decided.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      const failure = decided[1] as PromiseRejectedResult;
      expect(String(failure.reason)).toMatch(/WRONGTYPE/);
      expect(await hot.balance('user-a', NOW)).toEqual({ balance: BALANCE, held: 200 });
    } finally {
      await close();
    }
  });

  it('a call made when nothing is in flight is sent at once, as the script alone', async () => {
    const { counters: hot, close } = await counters();
    try {
      await loaded(hot, 'user-a');
      // A turn after the last reply: idle.
      await new Promise((resolve) => setImmediate(resolve));
      const before = { ...hot.batcher.sent };
      const admitted = hot.admit(check(hold('usage_1', 'user-a')));
      // Sent before the turn goes on: it waits for nothing.
      expect(hot.batcher.sent.commands - before.commands).toBe(1);
      expect((await admitted).hold).toBe('held');
    } finally {
      await close();
    }
  });
});

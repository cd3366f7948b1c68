import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createTestStore, type TestStore } from '../../test/helpers/test-store.js';
import { usageEventRow } from '../../test/helpers/usage-events.js';
import { createLogger } from '../shared/logger.js';
import { randomId } from '../shared/ids.js';
import { openRedis } from '../store/open-redis.js';
import { openRedisClient, type RedisClient } from '../store/redis-client.js';
import {
  LOADED_MACHINE_TIMEOUTS,
  startOwnRedisCluster,
  type OwnRedisCluster,
} from '../../test/helpers/own-redis-cluster.js';
import { applyLedgerEntry, getBalance } from '../credits/credit-ledger.js';
import type { Store } from '../store/database.js';
import type { AdmissionCheck, Hold, HotCounters, Settlement } from './hot-counters.js';
import { MemoryHotCounters } from './memory-hot-counters.js';
import { RedisHotCounters } from './redis-hot-counters.js';
import type { StoreWrite } from './redis-store-writes.js';
import { END_WRITES } from './redis-write-scripts.js';
import { PEEK } from './redis-load-scripts.js';
import { storeCounterSource } from './counter-source.js';
import { SETTLEMENT_GROUP, StreamSettlementWriter } from './stream-settlement-writer.js';
import { writeSettlements } from './write-settlements.js';
import type { SettlementRecord } from './settlement-record.js';
import { UsageWriter } from './usage-writer.js';
import { monthOf } from './key-spend.js';
import type { UsageEventsTable } from './metering-schema.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const NOW = Date.UTC(2026, 10, 24, 12);
const logger = createLogger('error', new Writable({ write: (_chunk, _encoding, callback) => callback() }));

interface Setup {
  /** Two views of one set of counters: two instances. */
  first: HotCounters;
  second: HotCounters;
  store: Store;
  /** Writes every settled record to the store. */
  flush(): Promise<void>;
  /** Memory only: takes the records queued for the store out of the writer's queue. */
  takeQueued?: () => SettlementRecord[];
  close(): Promise<void>;
}

let cluster: Promise<OwnRedisCluster> | undefined;
/** Started once for the file, on first use; stopped after it. */
function ownCluster(): Promise<OwnRedisCluster> {
  cluster ??= startOwnRedisCluster();
  return cluster;
}
afterAll(async () => {
  await (await cluster)?.stop();
}, 30_000);

async function redisSetup(base: RedisClient): Promise<Setup> {
  const testStore: TestStore = await createTestStore('postgres');
  const prefix = `test:${randomId(10)}:`;
  const source = storeCounterSource(testStore.store);
  const first = new RedisHotCounters(base, source, { prefix });
  const second = new RedisHotCounters(base, source, { prefix });
  await Promise.all([first.ready(), second.ready()]);
  const writer = new StreamSettlementWriter(base, first, testStore.store, logger, { now: () => NOW }, 'test', {
    blockMs: 10,
  });
  return {
    first,
    second,
    store: testStore.store,
    flush: () => writer.flush(),
    async close() {
      await writer.stop();
      await Promise.all([first.close(), second.close()]);
      base.disconnect();
      await testStore.cleanup();
    },
  };
}

const setups: Record<string, () => Promise<Setup>> = {
  async memory() {
    const testStore = await createTestStore('sqlite');
    const counters = new MemoryHotCounters(storeCounterSource(testStore.store));
    const writer = new UsageWriter(testStore.store, logger, { now: () => NOW }, counters);
    counters.setSink(writer);
    return {
      first: counters,
      second: counters,
      store: testStore.store,
      flush: () => writer.flush(),
      takeQueued: () => writer.take(),
      async close() {
        await writer.stop();
        await counters.close();
        await testStore.cleanup();
      },
    };
  },
  // Two clients on one prefix stand for two gateway instances.
  redis: () => redisSetup(openRedis(REDIS_URL)),
  // The same on a 3-node Redis Cluster of this file's own (every script's keys in one slot).
  'redis cluster': async () => redisSetup(openRedisClient((await ownCluster()).url, LOADED_MACHINE_TIMEOUTS)),
};

const hold = (id: string, amount: number, extra: Partial<Hold> = {}): Hold => ({
  id,
  userId: 'user-1',
  keyId: 'key-1',
  amount,
  expiresAt: NOW + 60_000,
  trackUser: true,
  trackKey: false,
  ...extra,
});

const check = (extra: Partial<AdmissionCheck>): AdmissionCheck => ({
  keyId: 'key-1',
  userId: 'user-1',
  rate: null,
  hold: null,
  monthlyQuota: null,
  lifetimeLimit: null,
  now: NOW,
  ...extra,
});

function event(id: string, cost: number, extra: Partial<UsageEventsTable> = {}): UsageEventsTable {
  return usageEventRow({ id, user_id: 'user-1', key_id: 'key-1', cost_nanos: cost, created_at: NOW, ...extra });
}

function settlement(heldBy: Hold | null, id: string, cost: number, charge = true): Settlement {
  return {
    hold: heldBy,
    userId: 'user-1',
    keyId: 'key-1',
    charge: charge ? cost : 0,
    keySpend: cost,
    month: monthOf(NOW),
    tokens: null,
    record: { event: event(id, cost), charge },
    now: NOW,
  };
}

async function grant(store: Store, counters: HotCounters, amount: number, reference: string): Promise<void> {
  // What metering's ledger watcher does around every ledger write outside settlement.
  const ticket = await counters.ledgerWrite(['user-1']);
  const result = await applyLedgerEntry(store, { userId: 'user-1', kind: 'grant', amount, reference }, NOW);
  await ticket.done(result.applied ? [{ userId: 'user-1', id: result.id!, amount: result.amount }] : []);
}

describe.each(Object.keys(setups))('hot counters: %s', (name) => {
  let setup: Setup | undefined;
  afterEach(async () => {
    await setup?.close();
    setup = undefined;
  });

  it('enforces rpm across instances, a refused request taking nothing', async () => {
    setup = await setups[name]();
    const { first, second } = setup;
    const limits = { rpmLimit: 4, tpmLimit: null };
    const results = [];
    for (let index = 0; index < 6; index++)
      results.push((await (index % 2 ? second : first).admit(check({ rate: { limits, tokens: 0 } }))).rate!);
    expect(results.map((result) => result.allowed)).toEqual([true, true, true, true, false, false]);
    expect(results[3].requests).toEqual({ limit: 4, remaining: 0, resetMs: 60_000 });
    expect(results[4]).toMatchObject({ refusedBy: 'requests', retryAfterMs: 15_000 });
    expect((await first.admit(check({ rate: { limits, tokens: 0 }, now: NOW + 15_000 }))).rate!.allowed).toBe(true);
  });

  it('corrects the tpm window at settlement by actual − reserved tokens', async () => {
    setup = await setups[name]();
    const { first, second } = setup;
    const limits = { rpmLimit: null, tpmLimit: 1000 };
    expect((await first.admit(check({ rate: { limits, tokens: 600 } }))).rate!.tokens?.remaining).toBe(400);
    await second.settle({ ...settlement(null, 'usage_t1', 0), tokens: { limits, delta: 300 } });
    const refused = (await second.admit(check({ rate: { limits, tokens: 200 } }))).rate!;
    expect(refused).toMatchObject({ allowed: false, refusedBy: 'tokens', tokens: { limit: 1000, remaining: 100 } });
    expect(refused.retryAfterMs).toBe(6000);
    await first.settle({ ...settlement(null, 'usage_t2', 0), tokens: { limits, delta: -500 } });
    expect((await first.admit(check({ rate: { limits, tokens: 200 } }))).rate!.allowed).toBe(true);
  });

  it('holds against balance − open holds across instances; settlement charges at once (read-your-writes)', async () => {
    setup = await setups[name]();
    const { first, second, store } = setup;
    await grant(store, first, 1000, 'grant:1');
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        (index % 2 ? second : first).admit(check({ hold: hold(`h${index}`, 300) })),
      ),
    );
    const held = outcomes.flatMap((outcome, index) => (outcome.hold === 'held' ? [index] : []));
    expect(held).toHaveLength(3);
    expect(outcomes.filter((outcome) => outcome.hold === 'insufficient_credits')).toHaveLength(7);
    expect(await first.balance('user-1', NOW)).toEqual({ balance: 1000, held: 900 });
    // The first request cost 250 of its 300: the balance read right after includes the charge.
    await second.settle(settlement(hold(`h${held[0]}`, 300), 'usage_1', 250));
    expect(await first.balance('user-1', NOW)).toEqual({ balance: 750, held: 600 });
    expect(await second.balance('user-1', NOW)).toEqual({ balance: 750, held: 600 });
    expect((await first.admit(check({ hold: hold('late', 200) }))).hold).toBe('insufficient_credits');
    expect((await first.admit(check({ hold: hold('small', 150) }))).hold).toBe('held');
    // A grant reaches the loaded counters at once.
    await grant(store, second, 500, 'grant:2');
    expect(await first.balance('user-1', NOW)).toEqual({ balance: 1250, held: 750 });
    // Expired holds (a dead instance's) stop counting.
    expect(await first.balance('user-1', NOW + 120_000)).toEqual({ balance: 1250, held: 0 });
    await setup.flush();
    expect(await getBalance(store, 'user-1')).toBe(1250);
    expect(await first.reconcile(NOW)).toEqual([]);
  });

  it('a lease-admitted settlement debits the lease; one marked holdNotInRedis releases no hold (Redis)', async () => {
    setup = await setups[name]();
    const { first, store } = setup;
    if (!(first instanceof RedisHotCounters)) return;
    await grant(store, first, 10_000, 'grant:1');
    // An admission sets this instance's lease aside, as metering's round trips do.
    const lease = { id: 'lease:test', floor: 0, share: 2, expiresAt: NOW + 60_000, mayConvert: false };
    const admitted = await first.admit(check({ hold: hold('h1', 300), lease }));
    expect(admitted.hold).toBe('held');
    const leased = admitted.lease!.amount;
    expect(leased).toBeGreaterThan(0);
    // balance() reports holds without the instances' leases.
    expect(await first.balance('user-1', NOW)).toEqual({ balance: 10_000, held: 300 });
    await first.settle(settlement(hold('h1', 300), 'usage_1', 250));
    // Admitted locally (never sent to Redis): the settlement debits the lease by its charge.
    const local = await first.settleFromLease({
      ...settlement(hold('h2', 300), 'usage_2', 200),
      leaseDebit: { id: lease.id, amount: 200 },
      holdNotInRedis: true,
    });
    expect(local.lease).toBe(leased - 200);
    expect(await first.shrinkLease('user-1', lease.id, 0)).toBe(leased - 200);
    expect(await first.balance('user-1', NOW)).toEqual({ balance: 9550, held: 0 });
    // The flag skips the hold's look-up: set on a hold that is in Redis, it would leave it held
    // (metering sets it only on holds no admission sent); without it the hold is released.
    expect((await first.admit(check({ hold: hold('h3', 300) }))).hold).toBe('held');
    await first.settleFromLease({ ...settlement(hold('h3', 300), 'usage_3', 0, false), holdNotInRedis: true });
    expect(await first.balance('user-1', NOW)).toEqual({ balance: 9550, held: 300 });
    await first.releaseHold(hold('h3', 300), NOW);
    expect(await first.balance('user-1', NOW)).toEqual({ balance: 9550, held: 0 });
    expect(await first.shrinkLease('user-1', lease.id, 0)).toBe(leased - 200);
    await setup.flush();
    expect(await getBalance(store, 'user-1')).toBe(9550);
  });

  it('refuses a key over its monthly quota or credit limit, counting settled spend and open holds', async () => {
    setup = await setups[name]();
    const { first, second } = setup;
    const keyOnly = { trackUser: false, trackKey: true };
    const quota = (id: string, amount: number) => check({ hold: hold(id, amount, keyOnly), monthlyQuota: 100 });
    expect((await first.admit(quota('a', 70))).hold).toBe('held');
    expect((await second.admit(quota('b', 70))).hold).toBe('held');
    expect((await first.admit(quota('c', 70))).hold).toBe('quota_exceeded');
    await first.settle(settlement(hold('a', 70, keyOnly), 'usage_a', 60, false));
    await second.settle(settlement(hold('b', 70, keyOnly), 'usage_b', 30, false));
    // 90 spent, no hold open: 10 left in the month.
    expect((await first.admit(quota('d', 70))).hold).toBe('held');
    expect((await first.admit(quota('e', 1))).hold).toBe('quota_exceeded');
    // Next month starts over; the lifetime limit counts everything.
    const nextMonth = NOW + 31 * 86_400_000;
    expect((await first.admit({ ...quota('f', 1), now: nextMonth })).hold).toBe('held');
    expect((await first.admit(check({ hold: hold('g', 1, keyOnly), lifetimeLimit: 90, now: nextMonth }))).hold).toBe(
      'credit_limit_exceeded',
    );
  });

  it('loads counters from the store on first use, pending settlements counted once', async () => {
    setup = await setups[name]();
    const { first, store } = setup;
    await applyLedgerEntry(store, { userId: 'user-1', kind: 'grant', amount: 10_000, reference: 'grant:old' }, NOW);
    expect((await first.admit(check({ hold: hold('h1', 100) }))).hold).toBe('held');
    // Settled but not yet in the store, then written while other settlements keep coming.
    await first.settle(settlement(hold('h1', 100), 'usage_1', 100));
    const writing = setup.flush();
    for (let index = 2; index < 20; index++) await first.settle(settlement(null, `usage_${index}`, 10));
    await writing;
    expect((await first.balance('user-1', NOW)).balance).toBe(10_000 - 100 - 18 * 10);
    expect(await first.reconcile(NOW)).toEqual([]);
    await setup.flush();
    expect(await getBalance(store, 'user-1')).toBe(10_000 - 100 - 18 * 10);
    expect(await first.reconcile(NOW)).toEqual([]);
  });

  it('a reload racing the store writer counts every settlement once; reconcile reports and repairs drift', async () => {
    setup = await setups[name]();
    const { first, second, store } = setup;
    await grant(store, first, 100_000, 'grant:1');
    expect((await first.balance('user-1', NOW)).balance).toBe(100_000);
    for (let round = 0; round < 5; round++) {
      for (let index = 0; index < 40; index++) await second.settle(settlement(null, `usage_${round}_${index}`, 7));
      // Reload (reconcile) while the writer commits the same settlements.
      const [, drift] = await Promise.all([setup.flush(), first.reconcile(NOW)]);
      expect(drift).toEqual([]);
    }
    expect((await second.balance('user-1', NOW)).balance).toBe(100_000 - 200 * 7);
    await setup.flush();
    expect(await getBalance(store, 'user-1')).toBe(100_000 - 200 * 7);
    // A ledger write the counters never heard of (no watcher): reconcile finds it and repairs.
    await applyLedgerEntry(store, { userId: 'user-1', kind: 'grant', amount: 5, reference: 'grant:quiet' }, NOW);
    expect(await first.reconcile(NOW)).toEqual([
      { entity: 'user user-1', expected: 100_000 - 1400 + 5, actual: 100_000 - 1400 },
    ]);
    expect((await second.balance('user-1', NOW)).balance).toBe(100_000 - 1400 + 5);
    expect(await second.reconcile(NOW)).toEqual([]);
  });

  it('a reload while a store write is between commit and acknowledgement waits for it', async () => {
    setup = await setups[name]();
    const { first, second, store } = setup;
    await grant(store, first, 10_000, 'grant:1');
    expect((await first.balance('user-1', NOW)).balance).toBe(10_000);
    await setup.flush();
    await second.settle(settlement(null, 'usage_slow', 300));
    // The writer's steps, by hand, with a reload started right after the commit.
    const settled = await takeSettled(setup);
    await settled.begin();
    await writeSettlements(store, logger, settled.records, NOW);
    const reload = first.reconcile(NOW);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await settled.end();
    expect(await reload).toEqual([]);
    expect((await second.balance('user-1', NOW)).balance).toBe(9_700);
    expect(await getBalance(store, 'user-1')).toBe(9_700);
    expect(await second.reconcile(NOW)).toEqual([]);
  });
});

/** The settled records waiting for the store, with the begin / end steps a writer runs around its transaction. */
async function takeSettled(setup: Setup) {
  if (setup.first instanceof MemoryHotCounters) {
    const counters = setup.first;
    const records = setup.takeQueued!();
    return {
      records,
      begin: async () => counters.beginWrite(records),
      end: async () => counters.endWrite(records, true),
    };
  }
  const counters = setup.first as RedisHotCounters;
  const redis = counters.redis;
  // user-1's accounts, and so its settlements, are in one shard.
  const shard = counters.keys.shardOf('user-1');
  const stream = counters.keys.stream(shard);
  await redis.call('XGROUP', 'CREATE', stream, SETTLEMENT_GROUP, '0', 'MKSTREAM').catch(() => undefined);
  const reply = (await redis.call('XREADGROUP', 'GROUP', SETTLEMENT_GROUP, 'hand', 'STREAMS', stream, '>')) as Array<
    [string, Array<[string, string[]]>]
  > | null;
  let write: StoreWrite | undefined;
  const entries = (reply?.[0]?.[1] ?? []).map(([id, fields]) => ({
    id,
    record: JSON.parse(fields[1]) as SettlementRecord,
  }));
  return {
    records: entries.map((entry) => entry.record),
    begin: async () => {
      write = await counters.beginWrite(
        shard,
        entries.map((entry) => entry.record),
      );
    },
    end: () => counters.endWrite(SETTLEMENT_GROUP, entries, true, write!),
  };
}

describe('store write marks in Redis', () => {
  it('a batch whose entries cost nothing is acknowledged: it does not hold up the entries after it', async () => {
    const setup = await setups.redis!();
    try {
      const counters = setup.first as RedisHotCounters;
      await grant(setup.store, counters, 1000, 'grant:zero-batch');
      // A refused request's record costs nothing: its batch marks no account.
      await counters.settle(settlement(null, 'usage_zero', 0, false));
      await setup.flush();
      await counters.settle(settlement(null, 'usage_paid', 100));
      await setup.flush();
      expect(await counters.unwrittenSettlements()).toBe(0);
      expect(await getBalance(setup.store, 'user-1')).toBe(900);
    } finally {
      await setup.close();
    }
  }, 20_000);

  it('are ended by their own id only: ending another or the same write again leaves a write under way marked', async () => {
    const setup = await setups.redis!();
    try {
      const counters = setup.first as RedisHotCounters;
      const record = {
        charge: true,
        event: { user_id: 'user-1', key_id: null, cost_nanos: 1, created_at: NOW },
      } as unknown as SettlementRecord;
      const shard = counters.keys.shardOf('user-1');
      const { user } = counters.keys.user(shard, 'user-1');
      const busy = async () =>
        (await PEEK.run(counters.redis, { keys: { account: user }, args: { now: Date.now(), loadedField: 'bal' } }))
          .busy;
      const one = await counters.beginWrite(shard, [record]);
      const two = await counters.beginWrite(shard, [record]);
      expect(await busy()).toBe(true);
      await END_WRITES.run(counters.redis, { keys: {}, keyList: one.keys, args: { writeId: 'a-write-never-begun' } });
      expect(await busy()).toBe(true);
      await counters.endWrite(SETTLEMENT_GROUP, [], false, one);
      await counters.endWrite(SETTLEMENT_GROUP, [], false, one);
      expect(await busy()).toBe(true);
      await counters.endWrite(SETTLEMENT_GROUP, [], false, two);
      expect(await busy()).toBe(false);
    } finally {
      await setup.close();
    }
  });

  it('after Redis lost its data: the new generation is fenced from its first moment, writes under way and lost records are marked again', async () => {
    const setup = await setups.redis!();
    try {
      const counters = setup.first as RedisHotCounters;
      const redis = counters.redis;
      const recordOf = (userId: string) =>
        ({
          charge: true,
          event: { user_id: userId, key_id: null, cost_nanos: 1, created_at: NOW },
        }) as unknown as SettlementRecord;
      const shard = counters.keys.shardOf('user-1');
      // Another user of the same shard (accounts spread over shards by a hash of their id).
      let other = 2;
      while (counters.keys.shardOf(`user-${other}`) !== shard) other++;
      const second = `user-${other}`;
      const busy = async (userId: string) =>
        (
          await PEEK.run(redis, {
            keys: { account: counters.keys.user(shard, userId).user },
            args: { now: Date.now(), loadedField: 'bal' },
          })
        ).busy;
      const generationKey = counters.keys.generation(shard);
      await counters.generation(shard, 'gen-before');
      const underWay = await counters.beginWrite(shard, [recordOf('user-1')]);
      const ended = await counters.beginWrite(shard, [recordOf('user-1')]);
      await counters.endWrite(SETTLEMENT_GROUP, [], false, ended);
      // The loss: the account's hash (its write mark with it) and the generation are gone.
      await redis.call('DEL', counters.keys.user(shard, 'user-1').user, generationKey);
      expect(await busy('user-1')).toBe(false);

      const fenceUntil = Date.now() + 60_000;
      expect((await counters.generation(shard, 'gen-after', undefined, fenceUntil)).generation).toBe('gen-after');
      expect(Number(await redis.call('HGET', generationKey, 'fence'))).toBe(fenceUntil);
      // A second caller that finds the generation made is no reason to move the fence.
      await counters.generation(shard, 'gen-other', undefined, fenceUntil + 1);
      expect(Number(await redis.call('HGET', generationKey, 'fence'))).toBe(fenceUntil);

      const marks = await counters.markAgain(shard, [recordOf(second)]);
      expect(await busy('user-1')).toBe(true);
      expect(await busy(second)).toBe(true);
      await counters.endWrite(SETTLEMENT_GROUP, [], false, underWay);
      expect(await busy('user-1')).toBe(false);
      await counters.endMarks(marks);
      expect(await busy(second)).toBe(false);
    } finally {
      await setup.close();
    }
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createTestStore, type TestStore } from '../../test/helpers/test-store.js';
import { chargedSettlement as settlement } from '../../test/helpers/usage-events.js';
import { createLogger } from '../shared/logger.js';
import { randomId } from '../shared/ids.js';
import { openRedis } from '../store/open-redis.js';
import { applyLedgerEntry, getBalance } from '../credits/credit-ledger.js';
import { RedisHotCounters } from './redis-hot-counters.js';
import { storeCounterSource } from './counter-source.js';
import { SETTLEMENT_GROUP, StreamSettlementWriter } from './stream-settlement-writer.js';
import { startOwnRedis } from '../../test/helpers/own-redis.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const lines: string[] = [];
const logger = createLogger(
  'info',
  new Writable({ write: (chunk, _encoding, callback) => (lines.push(String(chunk)), callback()) }),
);

describe('settlement stream writer', () => {
  let testStore: TestStore | undefined;
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.reverse()) await close();
    closers.length = 0;
    await testStore?.cleanup();
  });

  it('takes over entries a dead instance read and never acknowledged, writing each once', async () => {
    testStore = await createTestStore('postgres');
    const { store } = testStore;
    const base = openRedis(REDIS_URL);
    const counters = new RedisHotCounters(base, storeCounterSource(store), { prefix: `test:${randomId(10)}:` });
    closers.push(async () => {
      await counters.close();
      base.disconnect();
    });
    await applyLedgerEntry(store, { userId: 'user-1', kind: 'grant', amount: 10_000, reference: 'grant:1' });
    // No offline queue: a command sent before the connection is up fails (under load it can take a while).
    expect(await counters.ready()).toBe(true);
    expect((await counters.balance('user-1', Date.now())).balance).toBe(10_000);
    for (let index = 0; index < 5; index++) await counters.settle(settlement(`usage_${index}`, 100));
    // A "dead" consumer reads all five and never acknowledges them (user-1's shard has its stream).
    const stream = counters.keys.stream(counters.keys.shardOf('user-1'));
    await counters.redis.call('XGROUP', 'CREATE', stream, SETTLEMENT_GROUP, '0', 'MKSTREAM');
    await counters.redis.call('XREADGROUP', 'GROUP', SETTLEMENT_GROUP, 'dead', 'STREAMS', stream, '>');
    const clock = { now: () => Date.now() };
    const live = new StreamSettlementWriter(base, counters, store, logger, clock, 'live', {
      claimIdleMs: 300,
      blockMs: 10,
    });
    closers.push(() => live.stop());
    await live.flush();
    expect(await getBalance(store, 'user-1')).toBe(10_000); // too early: still the dead consumer's
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await live.flush();
    expect(await getBalance(store, 'user-1')).toBe(9_500);
    expect(lines.join('')).toMatch(/took over settlements/);
    expect(await counters.redis.xlen(stream)).toBe(0);
    // Nothing is pending any more: the counters and the ledger agree.
    expect(await counters.reconcile(Date.now())).toEqual([]);
    expect((await counters.balance('user-1', Date.now())).balance).toBe(9_500);
  });

  it('reports a stall while no pass completes (readiness turns not-ready), and none once passes complete again', async () => {
    testStore = await createTestStore('postgres');
    const { store } = testStore;
    const redis = await startOwnRedis();
    const base = openRedis(redis.url);
    const counters = new RedisHotCounters(base, storeCounterSource(store), { prefix: 'stall:' });
    const clock = { now: () => Date.now() };
    const writer = new StreamSettlementWriter(base, counters, store, logger, clock, 'one', { blockMs: 10 });
    closers.push(async () => {
      redis.resume();
      await writer.stop();
      await counters.close();
      base.disconnect();
      await redis.stop();
    });
    expect(await counters.ready()).toBe(true);
    writer.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(writer.stalled(1000)).toBeNull();
    redis.pause();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(writer.stalled(1000)).toMatch(/settlements have not been written for \d+ s/);
    redis.resume();
    const deadline = Date.now() + 10_000;
    while (writer.stalled(1000) !== null && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(writer.stalled(1000)).toBeNull();
  }, 30_000);

  it('after Redis lost the stream and its group (restarted without its data), creates the group again and goes on writing', async () => {
    testStore = await createTestStore('postgres');
    const { store } = testStore;
    const base = openRedis(REDIS_URL);
    const counters = new RedisHotCounters(base, storeCounterSource(store), { prefix: `test:${randomId(10)}:` });
    const clock = { now: () => Date.now() };
    const writer = new StreamSettlementWriter(base, counters, store, logger, clock, 'one', { blockMs: 10 });
    closers.push(async () => {
      await writer.stop();
      await counters.close();
      base.disconnect();
    });
    await applyLedgerEntry(store, { userId: 'user-1', kind: 'grant', amount: 10_000, reference: 'grant:1' });
    expect(await counters.ready()).toBe(true);
    await counters.balance('user-1', Date.now());
    writer.start();
    await counters.settle(settlement('usage_a', 100));
    const until = async (balance: number) => {
      const deadline = Date.now() + 10_000;
      while ((await getBalance(store, 'user-1')) !== balance && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      return getBalance(store, 'user-1');
    };
    expect(await until(9_900)).toBe(9_900);
    await counters.redis.del(counters.keys.stream(counters.keys.shardOf('user-1')));
    await counters.settle(settlement('usage_b', 100));
    expect(await until(9_800)).toBe(9_800);
    expect(lines.join('')).toMatch(/lost its consumer group/);
  }, 30_000);
});

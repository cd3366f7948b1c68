import { afterEach, describe, expect, it } from 'vitest';
import { chargedSettlement as settlement } from '../../test/helpers/usage-events.js';
import { randomId } from '../shared/ids.js';
import { openRedis } from '../store/open-redis.js';
import { RedisHotCounters } from './redis-hot-counters.js';
import { SETTLEMENT_GROUP } from './stream-settlement-writer.js';
import type { CounterSource } from './counter-source.js';
import type { SettlementRecord } from './settlement-record.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const source: CounterSource = {
  balance: async () => ({ balance: 0, lastEntryId: 0 }),
  lastEntryId: async () => 0,
  entriesAfter: async () => [],
  keySpend: async () => ({ month: null, monthSpend: 0, totalSpend: 0 }),
};

/**
 * The acknowledgement of a settlement batch (ACK_SETTLEMENTS) takes the batch's charges out of the
 * pending figures once per entry: a batch acknowledged twice, or partly acknowledged before, or
 * beside another consumer's entries, moves each figure by each entry once. (Issue 31, branch
 * redis-bodies: a variant acknowledging a whole batch in one XACK when it was exactly what its
 * consumer had pending was measured costlier in Redis than an XACK per entry and dropped; these
 * cases were its guard and stay the acknowledgement's.)
 */
describe('acknowledging settlement batches', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.reverse()) await close();
    closers.length = 0;
  });

  async function setup() {
    const base = openRedis(REDIS_URL);
    const counters = new RedisHotCounters(base, source, { prefix: `test:${randomId(10)}:` });
    closers.push(async () => {
      const keys = await counters.redis.keys(`${counters.prefix}*`);
      if (keys.length > 0) await counters.redis.del(...keys);
      await counters.close();
      base.disconnect();
    });
    expect(await counters.ready()).toBe(true);
    const shard = counters.keys.shardOf('user-1');
    const stream = counters.keys.stream(shard);
    await counters.redis.call('XGROUP', 'CREATE', stream, SETTLEMENT_GROUP, '0', 'MKSTREAM');
    const user = counters.keys.counters(shard, 'u:user-1');
    const key = counters.keys.counters(shard, 'k:key-1');
    const month = new Date().toISOString().slice(0, 7);
    const pending = async () => ({
      user: await counters.redis.hget(user, 'pend'),
      key: await counters.redis.hget(key, `p:${month}`),
    });
    const read = async (consumer: string, count: number) => {
      const reply = (await counters.redis.call(
        'XREADGROUP',
        'GROUP',
        SETTLEMENT_GROUP,
        consumer,
        'COUNT',
        count,
        'STREAMS',
        stream,
        '>',
      )) as Array<[string, Array<[string, string[]]>]> | null;
      return (reply?.[0]?.[1] ?? []).map(([id, fields]) => ({
        id,
        record: JSON.parse(fields[1]!) as SettlementRecord,
      }));
    };
    const ack = async (entries: Array<{ id: string; record: SettlementRecord }>) => {
      const write = await counters.beginWrite(
        shard,
        entries.map((entry) => entry.record),
      );
      await counters.endWrite(SETTLEMENT_GROUP, entries, true, write);
    };
    return { counters, stream, pending, read, ack };
  }

  it('a batch acknowledged twice, or partly acknowledged before, counts each entry once', async () => {
    const { counters, stream, pending, read, ack } = await setup();
    const now = Date.now();
    for (let index = 0; index < 4; index++) await counters.settle(settlement(`usage_a${index}`, 100 + index, now));
    expect(await pending()).toEqual({ user: '406', key: '406' });
    const entries = await read('one', 10);
    expect(entries).toHaveLength(4);
    await ack(entries.slice(0, 1));
    expect(await pending()).toEqual({ user: '306', key: '306' });
    // The whole batch now: the first entry is no longer pending, so it must not count again.
    await ack(entries);
    expect(await pending()).toEqual({ user: '0', key: null });
    // The same batch once more (a write whose acknowledgement's reply was lost, run again).
    await ack(entries);
    expect(await pending()).toEqual({ user: '0', key: null });
    expect(await counters.redis.xlen(stream)).toBe(0);
  });

  it("another consumer's entries, and this consumer's older ones, leave the batch exact", async () => {
    const { counters, stream, pending, read, ack } = await setup();
    const now = Date.now();
    for (let index = 0; index < 6; index++) await counters.settle(settlement(`usage_b${index}`, 10, now));
    const older = await read('one', 2);
    const others = await read('two', 2);
    const newer = await read('one', 2);
    expect([older.length, others.length, newer.length]).toEqual([2, 2, 2]);
    // `one` has four pending and acknowledges the newer two.
    await ack(newer);
    expect(await pending()).toEqual({ user: '40', key: '40' });
    // Another consumer's batch, behind `one`'s older entries.
    await ack(others);
    expect(await pending()).toEqual({ user: '20', key: '20' });
    await ack(older);
    expect(await pending()).toEqual({ user: '0', key: null });
    expect(await counters.redis.xlen(stream)).toBe(0);
  });
});

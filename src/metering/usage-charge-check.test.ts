import { afterEach, describe, expect, it } from 'vitest';
import { createTestStore, STORE_KINDS, type TestStore } from '../../test/helpers/test-store.js';
import { usageEventRow } from '../../test/helpers/usage-events.js';
import { applyLedgerEntry } from '../credits/credit-ledger.js';
import type { UsageEventsTable } from './metering-schema.js';
import { usageChargeDrift } from './usage-charge-check.js';

function event(id: string, userId: string, cost: number): UsageEventsTable {
  return usageEventRow({ id, user_id: userId, cost_nanos: cost, created_at: Date.now() });
}

describe.each(STORE_KINDS)('answered requests against their charges (%s)', (kind) => {
  let testStore: TestStore | undefined;
  afterEach(async () => {
    await testStore?.cleanup();
  });

  it('reports uncharged requests, charges cut below their cost and charges without their event; nothing when they agree', async () => {
    testStore = await createTestStore(kind);
    const { store } = testStore;
    await applyLedgerEntry(store, { userId: 'alice', kind: 'grant', amount: 1_000, reference: 'grant:a' });
    await applyLedgerEntry(store, { userId: 'bob', kind: 'grant', amount: 1_000, reference: 'grant:b' });
    await store.db
      .insertInto('usage_events')
      .values([
        event('usage_1', 'alice', 100),
        event('usage_2', 'bob', 100),
        event('usage_3', 'bob', 300),
        event('usage_4', 'bob', 50),
        event('usage_5', 'bob', 0),
      ])
      .execute();
    const charge = (userId: string, id: string, amount: number) =>
      applyLedgerEntry(store, { userId, kind: 'usage', amount: -amount, reference: `usage:${id}` });
    await charge('alice', 'usage_1', 100);
    await charge('bob', 'usage_2', 100);
    await charge('bob', 'usage_3', 120); // cut: 180 served free
    await charge('bob', 'usage_gone', 10); // no event
    expect(await usageChargeDrift(store.db)).toEqual([
      { userId: 'bob', uncharged: 1, unchargedNanos: 50, cut: 1, cutNanos: 180, orphanCharges: 1 },
    ]);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { createTestStore, STORE_KINDS, type TestStore } from '../../test/helpers/test-store.js';
import type { Transaction } from 'kysely';
import type { Database } from '../store/schema.js';
import { keySpend, monthOf } from './key-spend.js';
import { SETTLEMENT_SQL } from './settlement-sql.js';

describe.each(STORE_KINDS)('key spend on %s', (kind) => {
  let testStore: TestStore | undefined;
  afterEach(async () => {
    await testStore?.cleanup();
    testStore = undefined;
  });

  it('keeps spend per key for this month and in total, and starts a new month at zero (an older month only adds to the total)', async () => {
    testStore = await createTestStore(kind);
    const { store } = testStore;
    // The settlement's own statement, as the usage writer runs it.
    const addKeySpend = (transaction: Transaction<Database>, key: string, month: string, amount: number, now: number) =>
      transaction.executeQuery(SETTLEMENT_SQL[store.dialect].addKeySpend(key, month, amount, now));
    const january = Date.UTC(2031, 0, 15);
    const february = Date.UTC(2031, 1, 2);
    await store.db.transaction().execute(async (transaction) => {
      await addKeySpend(transaction, 'key-1', monthOf(january), 700, january);
      await addKeySpend(transaction, 'key-1', monthOf(january), 300, january);
      await addKeySpend(transaction, 'key-2', monthOf(january), 5, january);
    });
    expect(await keySpend(store.db, ['key-1', 'key-2', 'key-3'], january)).toEqual(
      new Map([
        ['key-1', { monthNanos: 1000, totalNanos: 1000 }],
        ['key-2', { monthNanos: 5, totalNanos: 5 }],
      ]),
    );
    expect((await keySpend(store.db, ['key-1'], february)).get('key-1')).toEqual({ monthNanos: 0, totalNanos: 1000 });
    await store.db
      .transaction()
      .execute((transaction) => addKeySpend(transaction, 'key-1', monthOf(february), 40, february));
    expect((await keySpend(store.db, ['key-1'], february)).get('key-1')).toEqual({ monthNanos: 40, totalNanos: 1040 });
    // A late record of January (a batch straddling the month's end) adds to the total, not to February.
    await store.db
      .transaction()
      .execute((transaction) => addKeySpend(transaction, 'key-1', monthOf(january), 2, february));
    expect((await keySpend(store.db, ['key-1'], february)).get('key-1')).toEqual({ monthNanos: 40, totalNanos: 1042 });
  });
});

describe('monthOf', () => {
  it('names the UTC month of a time, at and around month and year boundaries, in any order of asking', () => {
    const cases: [number, string][] = [
      [Date.UTC(2026, 10, 25, 12), '2026-11'],
      [Date.UTC(2026, 11, 1) - 1, '2026-11'],
      [Date.UTC(2026, 11, 1), '2026-12'],
      [Date.UTC(2027, 0, 1) - 1, '2026-12'],
      [Date.UTC(2027, 0, 1), '2027-01'],
      [Date.UTC(2024, 1, 29, 23, 59), '2024-02'],
      [Date.UTC(2026, 10, 1), '2026-11'],
    ];
    for (const [time, month] of [...cases, ...cases.reverse()]) expect(monthOf(time)).toBe(month);
  });
});

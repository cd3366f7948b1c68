import { afterEach, describe, expect, it } from 'vitest';
import { createTestStore, STORE_KINDS, type TestStore } from '../../test/helpers/test-store.js';
import { applyLedgerEntriesForUser, applyLedgerEntry, getBalance, listLedgerEntries } from './credit-ledger.js';

describe.each(STORE_KINDS)('credit ledger on %s', (kind) => {
  let testStore: TestStore | undefined;
  afterEach(async () => {
    await testStore?.cleanup();
    testStore = undefined;
  });

  it('applies an entry once per reference and keeps the balance equal to the ledger sum', async () => {
    testStore = await createTestStore(kind);
    const { store } = testStore;
    expect(await getBalance(store, 'user-1')).toBe(0);
    expect(
      await applyLedgerEntry(store, { userId: 'user-1', kind: 'grant', amount: 5_000_000_000, reference: 'grant:1' }),
    ).toMatchObject({ applied: true, amount: 5_000_000_000, balance: 5_000_000_000 });
    expect(
      (await applyLedgerEntry(store, { userId: 'user-1', kind: 'grant', amount: 5_000_000_000, reference: 'grant:1' }))
        .applied,
    ).toBe(false);
    expect(
      await applyLedgerEntry(store, { userId: 'user-1', kind: 'usage', amount: -1_234, reference: 'usage:a' }),
    ).toMatchObject({ applied: true, balance: 4_999_998_766 });
    expect(await getBalance(store, 'user-1')).toBe(4_999_998_766);
    const entries = await listLedgerEntries(store.db, 'user-1');
    expect(entries.map((entry) => entry.kind)).toEqual(['usage', 'grant']);
    expect(entries.reduce((sum, entry) => sum + Number(entry.amount_nanos), 0)).toBe(4_999_998_766);
  });

  it('never takes the balance below zero: a debit larger than the balance takes what is there', async () => {
    testStore = await createTestStore(kind);
    const { store } = testStore;
    await applyLedgerEntry(store, { userId: 'user-2', kind: 'grant', amount: 100, reference: 'grant:2' });
    expect(
      await applyLedgerEntry(store, { userId: 'user-2', kind: 'refund', amount: -250, reference: 'refund:2' }),
    ).toMatchObject({ applied: true, amount: -100, balance: 0 });
    expect(await getBalance(store, 'user-2')).toBe(0);
  });

  it('applies a batch in one insert: repeats (in the ledger or in the batch) change nothing, debits are cut in order', async () => {
    testStore = await createTestStore(kind);
    const { store } = testStore;
    await applyLedgerEntry(store, { userId: 'user-3', kind: 'grant', amount: 1_000, reference: 'grant:3' });
    await applyLedgerEntry(store, { userId: 'user-3', kind: 'usage', amount: -100, reference: 'usage:old' });
    const entries = [
      { userId: 'user-3', kind: 'usage' as const, amount: -300, reference: 'usage:a' },
      // Already in the ledger: not applied, and it takes no part in cutting the later debits.
      { userId: 'user-3', kind: 'usage' as const, amount: -500, reference: 'usage:old' },
      { userId: 'user-3', kind: 'usage' as const, amount: -400, reference: 'usage:b' },
      { userId: 'user-3', kind: 'usage' as const, amount: -400, reference: 'usage:a' },
      { userId: 'user-3', kind: 'usage' as const, amount: -700, reference: 'usage:c' },
    ];
    const results = await store.db
      .transaction()
      .execute((transaction) => applyLedgerEntriesForUser(transaction, 'user-3', entries, 1));
    expect(results.map(({ applied, amount, balance }) => ({ applied, amount, balance }))).toEqual([
      { applied: true, amount: -300, balance: 600 },
      { applied: false, amount: 0, balance: 600 },
      { applied: true, amount: -400, balance: 200 },
      { applied: false, amount: 0, balance: 200 },
      { applied: true, amount: -200, balance: 0 },
    ]);
    expect(results.filter((result) => result.applied).every((result) => Number.isInteger(result.id))).toBe(true);
    expect(await getBalance(store, 'user-3')).toBe(0);
    const ledger = await listLedgerEntries(store.db, 'user-3');
    expect(ledger.reduce((sum, entry) => sum + Number(entry.amount_nanos), 0)).toBe(0);
    expect(ledger).toHaveLength(5);
    // The same batch again: nothing moves.
    const again = await store.db
      .transaction()
      .execute((transaction) => applyLedgerEntriesForUser(transaction, 'user-3', entries, 2));
    expect(again.every((result) => !result.applied)).toBe(true);
    expect(await getBalance(store, 'user-3')).toBe(0);
  });

  it('applies 50 concurrent entries exactly once each, with 50 duplicates ignored', async () => {
    testStore = await createTestStore(kind);
    const { store } = testStore;
    const entries = Array.from({ length: 100 }, (_, index) => ({
      userId: 'user-3',
      kind: 'grant' as const,
      amount: 1000 + (index % 50),
      reference: `grant:${index % 50}`,
    }));
    const results = await Promise.all(entries.map((entry) => applyLedgerEntry(store, entry)));
    expect(results.filter((result) => result.applied)).toHaveLength(50);
    expect(await getBalance(store, 'user-3')).toBe(
      Array.from({ length: 50 }, (_, index) => 1000 + index).reduce((a, b) => a + b, 0),
    );
  });
});

import type { Store } from '../store/database.js';
import type { LedgerMove } from '../credits/credit-ledger.js';

/** A key's spend as the store has it. */
interface StoredKeySpend {
  /** The month monthSpend belongs to (YYYY-MM), or null when the key never spent. */
  month: string | null;
  monthSpend: number;
  totalSpend: number;
}

/** Where hot counters load from: the ledger's balance and the keys' running spend. */
export interface CounterSource {
  /** The balance and the user's newest ledger entry id (0: none), read in one snapshot. */
  balance(userId: string): Promise<{ balance: number; lastEntryId: number }>;
  /** The newest ledger entry id (0: an empty ledger). */
  lastEntryId(): Promise<number>;
  /** Ledger entries other than usage charges with afterId < id ≤ upTo, oldest first. */
  entriesAfter(afterId: number, upTo: number): Promise<LedgerMove[]>;
  keySpend(keyId: string): Promise<StoredKeySpend>;
}

export function storeCounterSource(store: Store): CounterSource {
  return {
    async balance(userId) {
      const row = await store.db
        .selectFrom('credit_balances')
        .select('balance_nanos')
        .select((eb) =>
          eb
            .selectFrom('credit_ledger')
            .select((inner) => inner.fn.max('id').as('last'))
            .where('user_id', '=', userId)
            .as('last_entry_id'),
        )
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return { balance: Number(row?.balance_nanos ?? 0), lastEntryId: Number(row?.last_entry_id ?? 0) };
    },
    async lastEntryId() {
      const row = await store.db
        .selectFrom('credit_ledger')
        .select((eb) => eb.fn.max('id').as('last'))
        .executeTakeFirst();
      return Number(row?.last ?? 0);
    },
    async entriesAfter(afterId, upTo) {
      const rows = await store.db
        .selectFrom('credit_ledger')
        .select(['id', 'user_id', 'amount_nanos'])
        .where('id', '>', afterId)
        .where('id', '<=', upTo)
        .where('kind', '<>', 'usage')
        .orderBy('id')
        .execute();
      return rows.map((row) => ({ id: Number(row.id), userId: row.user_id, amount: Number(row.amount_nanos) }));
    },
    async keySpend(keyId) {
      const row = await store.db
        .selectFrom('key_spend')
        .select(['month', 'month_spend_nanos', 'total_spend_nanos'])
        .where('key_id', '=', keyId)
        .executeTakeFirst();
      return row
        ? { month: row.month, monthSpend: Number(row.month_spend_nanos), totalSpend: Number(row.total_spend_nanos) }
        : { month: null, monthSpend: 0, totalSpend: 0 };
    },
  };
}

import type { Kysely, Transaction } from 'kysely';
import type { Dialect, Store } from '../store/database.js';
import type { Database } from '../store/schema.js';
import type { LedgerKind } from './credits-schema.js';
import './credits-schema.js';

export interface LedgerEntry {
  userId: string;
  kind: LedgerKind;
  /** nano-USD, signed: grants, purchases and refunds of usage add (positive), usage charges subtract. */
  amount: number;
  /** Unique per entry (e.g. `order:<id>`, `usage:<event id>`); a second entry with it is a no-op. */
  reference: string;
  description?: string;
}

export interface LedgerResult {
  /** false when an entry with this reference already existed: nothing changed. */
  applied: boolean;
  /** What the entry actually moved: a debit larger than the balance is cut to the balance. */
  amount: number;
  balance: number;
}

/**
 * Applies one ledger entry and moves the balance with it, atomically. The balance never goes
 * below zero: a debit larger than the balance takes what is there (and records that amount).
 */
export async function applyLedgerEntry(store: Store, entry: LedgerEntry, now = Date.now()): Promise<LedgerResult> {
  if (!Number.isSafeInteger(entry.amount)) throw new RangeError('ledger amounts are integer nano-USD');
  return store.db.transaction().execute(async (transaction) => {
    const [result] = await applyLedgerEntriesForUser(transaction, store.dialect, entry.userId, [entry], now);
    return result;
  });
}

/** Whether the user's ledger holds an entry with this reference. */
export async function hasLedgerEntry(store: Store, userId: string, reference: string): Promise<boolean> {
  const row = await store.db
    .selectFrom('credit_ledger')
    .select('id')
    .where('reference', '=', reference)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The user's balance in nano-USD (0 for a user who never had credits). */
export async function getBalance(store: Store | { db: Kysely<Database> }, userId: string): Promise<number> {
  const row = await store.db
    .selectFrom('credit_balances')
    .select('balance_nanos')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row ? Number(row.balance_nanos) : 0;
}

/**
 * Applies several entries of one user inside the caller's transaction (the usage writer settles
 * a batch this way). The balance row is locked first, so concurrent writers queue per user.
 */
export async function applyLedgerEntriesForUser(
  transaction: Transaction<Database>,
  dialect: Dialect,
  userId: string,
  entries: LedgerEntry[],
  now: number,
): Promise<LedgerResult[]> {
  await transaction
    .insertInto('credit_balances')
    .values({ user_id: userId, balance_nanos: 0, updated_at: now })
    .onConflict((conflict) => conflict.column('user_id').doNothing())
    .execute();
  let locked = transaction.selectFrom('credit_balances').select('balance_nanos').where('user_id', '=', userId);
  // SQLite has no row locks; its transactions are serialized, which is stronger.
  if (dialect === 'postgres') locked = locked.forUpdate();
  let balance = Number((await locked.executeTakeFirstOrThrow()).balance_nanos);

  const results: LedgerResult[] = [];
  let moved = 0;
  for (const entry of entries) {
    const amount = entry.amount < 0 ? -Math.min(-entry.amount, balance) : entry.amount;
    const inserted = await transaction
      .insertInto('credit_ledger')
      .values({
        user_id: userId,
        kind: entry.kind,
        amount_nanos: amount,
        reference: entry.reference,
        description: entry.description ?? '',
        created_at: now,
      })
      .onConflict((conflict) => conflict.column('reference').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (inserted) {
      balance += amount;
      moved += amount;
    }
    results.push({ applied: inserted !== undefined, amount: inserted ? amount : 0, balance });
  }
  if (moved !== 0) {
    await transaction
      .updateTable('credit_balances')
      .set({ balance_nanos: balance, updated_at: now })
      .where('user_id', '=', userId)
      .execute();
  }
  return results;
}

/** A user's ledger, newest first (for the billing pages and audits). */
export async function listLedgerEntries(db: Kysely<Database>, userId: string, limit = 100) {
  return db
    .selectFrom('credit_ledger')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

import type { Kysely, Transaction } from 'kysely';
import type { Dialect, Store } from '../store/database.js';
import type { Database } from '../store/schema.js';
import type { LedgerKind } from './metering-schema.js';
import './metering-schema.js';

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

/** Rows per statement: well under SQLite's and PostgreSQL's bound-parameter limits. */
const LEDGER_ROWS_PER_STATEMENT = 200;

/** The user's balance in nano-USD (0 for a user who never had credits). */
export async function getBalance(store: Store | { db: Kysely<Database> }, userId: string): Promise<number> {
  const row = await store.db.selectFrom('credit_balances').select('balance_nanos').where('user_id', '=', userId).executeTakeFirst();
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

  // One round trip for the whole batch instead of one insert per entry: which references are
  // already there is read under the balance row's lock, so the amounts (debits capped at the
  // running balance) are decided here and written in one multi-row insert.
  const existing = new Set<string>();
  for (let start = 0; start < entries.length; start += LEDGER_ROWS_PER_STATEMENT) {
    const references = entries.slice(start, start + LEDGER_ROWS_PER_STATEMENT).map((entry) => entry.reference);
    const rows = await transaction.selectFrom('credit_ledger').select('reference').where('reference', 'in', references).execute();
    for (const row of rows) existing.add(row.reference);
  }
  const results: LedgerResult[] = [];
  const rows: Array<{ user_id: string; kind: LedgerKind; amount_nanos: number; reference: string; description: string; created_at: number }> = [];
  let moved = 0;
  for (const entry of entries) {
    // A reference seen twice in one call applies once, as sequential inserts would.
    if (existing.has(entry.reference)) {
      results.push({ applied: false, amount: 0, balance });
      continue;
    }
    existing.add(entry.reference);
    const amount = entry.amount < 0 ? -Math.min(-entry.amount, balance) : entry.amount;
    rows.push({ user_id: userId, kind: entry.kind, amount_nanos: amount, reference: entry.reference, description: entry.description ?? '', created_at: now });
    balance += amount;
    moved += amount;
    results.push({ applied: true, amount, balance });
  }
  for (let start = 0; start < rows.length; start += LEDGER_ROWS_PER_STATEMENT) {
    const slice = rows.slice(start, start + LEDGER_ROWS_PER_STATEMENT);
    const inserted = await transaction.insertInto('credit_ledger').values(slice).onConflict((conflict) => conflict.column('reference').doNothing()).returning('id').execute();
    // Another writer inserted one of these references between our read and our insert (it cannot
    // be for this user: we hold its lock). Roll back; the caller's retry reads the ledger again.
    if (inserted.length !== slice.length) throw new Error('credit ledger: a reference was written concurrently; retry the batch');
  }
  if (moved !== 0) {
    await transaction.updateTable('credit_balances').set({ balance_nanos: balance, updated_at: now }).where('user_id', '=', userId).execute();
  }
  return results;
}

/** A user's ledger, newest first (for the billing pages and audits). */
export async function listLedgerEntries(db: Kysely<Database>, userId: string, limit = 100) {
  return db.selectFrom('credit_ledger').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').limit(limit).execute();
}

import type { Insertable, Kysely, Transaction } from 'kysely';
import type { Store } from '../store/database.js';
import type { Database } from '../store/schema.js';
import type { CreditLedgerTable, LedgerKind } from './credits-schema.js';
import './credits-schema.js';
import { balanceLimitExceeded, HARD_BALANCE_LIMIT_NANOS, MAX_BALANCE_NANOS } from './balance-limit.js';

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
  /** The entry's ledger id (null when not applied). */
  id: number | null;
  /** What the entry actually moved: a debit larger than the balance is cut to the balance. */
  amount: number;
  balance: number;
}

/** One committed ledger entry, as told to a LedgerWatcher. */
export interface LedgerMove {
  userId: string;
  id: number;
  amount: number;
}

/**
 * Told about every ledger write made through applyLedgerEntry (grants, purchases, refunds: every
 * write outside usage settlement), so balances kept elsewhere (metering's hot counters) stay
 * exact. beforeWrite runs before the transaction, the function it returns after the commit with
 * what moved (nothing when the write failed). A watcher handles its own failures: it never throws.
 */
export interface LedgerWatcher {
  beforeWrite(userIds: string[]): Promise<(moves: LedgerMove[]) => Promise<void>>;
}

// Keyed by the store object: whoever writes through this store (the app, the CLI, billing, the
// admin API) reaches the watchers registered for it, with no module-wide state beyond that.
const watchers = new WeakMap<Store, Map<unknown, LedgerWatcher[]>>();

/**
 * Registers a watcher of this store's ledger writes; returns the function that removes it.
 * Watchers with the same `identity` (two app instances in one process sharing one store and one
 * Redis, as tests run them) count as one, so a write is applied to shared counters once.
 */
export function watchLedger(store: Store, watcher: LedgerWatcher, identity: unknown = watcher): () => void {
  let registered = watchers.get(store);
  if (!registered) watchers.set(store, (registered = new Map()));
  const same = registered.get(identity) ?? [];
  same.push(watcher);
  registered.set(identity, same);
  return () => {
    same.splice(same.indexOf(watcher), 1);
    if (same.length === 0) registered.delete(identity);
  };
}

/**
 * Applies one ledger entry and moves the balance with it, atomically. The balance never goes
 * below zero: a debit larger than the balance takes what is there (and records that amount).
 * Every ledger write outside usage settlement goes through here, so the watchers see them all.
 */
export async function applyLedgerEntry(store: Store, entry: LedgerEntry, now = Date.now()): Promise<LedgerResult> {
  if (!Number.isSafeInteger(entry.amount)) throw new RangeError('ledger amounts are integer nano-USD');
  const finish = await Promise.all(
    [...(watchers.get(store)?.values() ?? [])].map((same) => same.at(-1)!.beforeWrite([entry.userId])),
  );
  let result: LedgerResult | undefined;
  try {
    result = await store.db.transaction().execute(async (transaction) => {
      // An operator's grant (or a positive adjustment) stops at the account cap; a purchase was
      // paid for and is credited up to the hard limit only (checkout enforces the cap before payment).
      const limit =
        entry.kind === 'grant' || entry.kind === 'adjustment' ? MAX_BALANCE_NANOS : HARD_BALANCE_LIMIT_NANOS;
      const [applied] = await applyLedgerEntriesForUser(transaction, entry.userId, [entry], now, limit);
      return applied;
    });
    return result;
  } finally {
    const moves =
      result?.applied && result.id !== null ? [{ userId: entry.userId, id: result.id, amount: result.amount }] : [];
    await Promise.all(finish.map((done) => done(moves)));
  }
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
 * What each amount actually moves, in order, starting from `balance`: credits in full, debits
 * cut to what is left, so the balance never goes below zero. Pure.
 */
export function cutToBalance(balance: number, amounts: number[]): number[] {
  let available = balance;
  return amounts.map((amount) => {
    const moved = amount < 0 ? -Math.min(-amount, Math.max(0, available)) : amount;
    available += moved;
    return moved;
  });
}

/**
 * Applies several entries of one user inside the caller's transaction (the usage writer settles
 * a batch this way): the balance row is locked first, so concurrent writers queue per user, then
 * every entry goes in one multi-row insert and the balance moves once. Three statements whatever
 * the number of entries (they used to be one insert each, the settlement path's largest cost).
 *
 * Debits are cut to what is left, in order. An entry whose reference is already in the ledger
 * changes nothing: references are looked up first, so a repeated entry takes no part in the cutting.
 * A credit that would take the balance past `limit` (nano-USD) throws 400 `balance_limit_exceeded`
 * and writes nothing (balance-limit.ts says why there is a limit).
 */
export async function applyLedgerEntriesForUser(
  transaction: Transaction<Database>,
  userId: string,
  entries: LedgerEntry[],
  now: number,
  limit: number = HARD_BALANCE_LIMIT_NANOS,
): Promise<LedgerResult[]> {
  // An upsert that touches the row: it exists afterwards, comes back with its balance, and is
  // locked until commit on PostgreSQL (SQLite transactions are serialized, which is stronger).
  const locked = await transaction
    .insertInto('credit_balances')
    .values({ user_id: userId, balance_nanos: 0, updated_at: now })
    .onConflict((conflict) => conflict.column('user_id').doUpdateSet((eb) => ({ user_id: eb.ref('excluded.user_id') })))
    .returning('balance_nanos')
    .executeTakeFirstOrThrow();
  let balance = Number(locked.balance_nanos);
  if (entries.length === 0) return [];

  const existing =
    entries.length === 1
      ? new Set<string>()
      : new Set(
          (
            await transaction
              .selectFrom('credit_ledger')
              .select('reference')
              .where(
                'reference',
                'in',
                entries.map((entry) => entry.reference),
              )
              .execute()
          ).map((row) => row.reference),
        );
  const planned = new Map<string, { index: number; amount: number }>();
  const rows: Insertable<CreditLedgerTable>[] = [];
  const fresh = entries.filter((entry, index) => {
    if (existing.has(entry.reference) || planned.has(entry.reference)) return false;
    planned.set(entry.reference, { index, amount: 0 });
    return true;
  });
  const amounts = cutToBalance(
    balance,
    fresh.map((entry) => entry.amount),
  );
  let projected = balance;
  for (const amount of amounts) {
    if (amount > 0 && projected + amount > limit) throw balanceLimitExceeded(projected, amount, limit);
    projected += amount;
  }
  fresh.forEach((entry, position) => {
    const amount = amounts[position];
    planned.get(entry.reference)!.amount = amount;
    rows.push({
      user_id: userId,
      kind: entry.kind,
      amount_nanos: amount,
      reference: entry.reference,
      description: entry.description ?? '',
      created_at: now,
    });
  });
  const inserted =
    rows.length === 0
      ? []
      : await transaction
          .insertInto('credit_ledger')
          .values(rows)
          .onConflict((conflict) => conflict.column('reference').doNothing())
          .returning(['id', 'reference'])
          .execute();
  const ids = new Map(inserted.map((row) => [row.reference, Number(row.id)]));
  let moved = 0;
  const results = entries.map((entry): LedgerResult => {
    const plan = planned.get(entry.reference);
    const id = ids.get(entry.reference);
    // The first entry with a reference is the one applied; a repeat within the batch is not.
    if (plan === undefined || id === undefined || entries[plan.index] !== entry)
      return { applied: false, id: null, amount: 0, balance };
    balance += plan.amount;
    moved += plan.amount;
    return { applied: true, id, amount: plan.amount, balance };
  });
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

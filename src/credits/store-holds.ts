import type { Transaction } from 'kysely';
import type { Dialect, Store } from '../store/database.js';
import type { Database } from '../store/schema.js';
import './credits-schema.js';

/** A hold kept in the store (while Redis is down). */
export interface StoreHold {
  id: string;
  userId: string;
  amount: number;
  expiresAt: number;
}

/**
 * Takes a hold in the store if balance − open holds covers it: one transaction with the user's
 * balance row locked, so any number of instances decide one after another. Holds past their
 * expiry (their instance died) are dropped first. Slower than the hot counters (a transaction
 * per request), used only while Redis is down.
 */
export async function holdInStore(store: Store, hold: StoreHold, now: number): Promise<boolean> {
  return store.db.transaction().execute(async (transaction) => {
    await transaction
      .insertInto('credit_balances')
      .values({ user_id: hold.userId, balance_nanos: 0, updated_at: now })
      .onConflict((conflict) => conflict.column('user_id').doNothing())
      .execute();
    const row = await lockBalance(transaction, store.dialect, hold.userId);
    const expired = await transaction
      .deleteFrom('credit_holds')
      .where('user_id', '=', hold.userId)
      .where('expires_at', '<=', now)
      .returning('amount_nanos')
      .execute();
    const held = Number(row.held_nanos) - expired.reduce((sum, entry) => sum + Number(entry.amount_nanos), 0);
    const admitted = Number(row.balance_nanos) - held >= hold.amount;
    if (admitted)
      await transaction
        .insertInto('credit_holds')
        .values({
          id: hold.id,
          user_id: hold.userId,
          amount_nanos: hold.amount,
          expires_at: hold.expiresAt,
          created_at: now,
        })
        .execute();
    const next = Math.max(0, held + (admitted ? hold.amount : 0));
    if (next !== Number(row.held_nanos))
      await transaction
        .updateTable('credit_balances')
        .set({ held_nanos: next })
        .where('user_id', '=', hold.userId)
        .execute();
    return admitted;
  });
}

/** Releases store holds inside the settlement's transaction (after the user's row is locked). */
export async function releaseStoreHolds(transaction: Transaction<Database>, userId: string, holdIds: string[]) {
  if (holdIds.length === 0) return;
  const released = await transaction
    .deleteFrom('credit_holds')
    .where('id', 'in', holdIds)
    .returning('amount_nanos')
    .execute();
  const amount = released.reduce((sum, entry) => sum + Number(entry.amount_nanos), 0);
  if (amount === 0) return;
  await transaction
    .updateTable('credit_balances')
    .set((eb) => ({ held_nanos: eb('held_nanos', '-', amount) }))
    .where('user_id', '=', userId)
    .execute();
}

/** Open store holds of a user (for the balance shown while Redis is down). */
export async function storeHeld(store: Store, userId: string, now: number): Promise<number> {
  const rows = await store.db
    .selectFrom('credit_holds')
    .select('amount_nanos')
    .where('user_id', '=', userId)
    .where('expires_at', '>', now)
    .execute();
  return rows.reduce((sum, row) => sum + Number(row.amount_nanos), 0);
}

async function lockBalance(transaction: Transaction<Database>, dialect: Dialect, userId: string) {
  let query = transaction
    .selectFrom('credit_balances')
    .select(['balance_nanos', 'held_nanos'])
    .where('user_id', '=', userId);
  // SQLite has no row locks; its transactions are serialized, which is stronger.
  if (dialect === 'postgres') query = query.forUpdate();
  return query.executeTakeFirstOrThrow();
}

import type { Transaction } from 'kysely';
import type { Store } from '../store/database.js';
import type { Database } from '../store/schema.js';
import './credits-schema.js';

/**
 * Releases store holds inside the settlement's transaction (after the user's row is locked).
 * Until issue 25 an instance took these holds while Redis was down; that fallback could not see
 * the holds and unwritten charges in Redis and was replaced by outage leases
 * (src/metering/outage-leases.ts). Settlement records written by older versions may still name
 * one, so their release stays.
 */
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

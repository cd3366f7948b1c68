import type { Auth } from './create-auth.js';
import type { Store } from '../store/database.js';
import { randomId } from '../shared/ids.js';
import { revokeAllKeysOfUser } from '../keys/revoke-user-keys.js';
import './user-roles.js';
import './admin-audit-log.js';
import { withAuthContext } from './auth-async-context.js';

/**
 * The other features' tables that hold a user id, as far as erasing an account needs them. Named
 * here rather than imported, so the users domain does not depend on billing, metering or
 * statistics (which depend on it).
 */
type ErasableTables = {
  usage_events: { user_id: string | null };
  usage_model_users_day: { user_id: string };
  credit_ledger: { user_id: string };
  credit_balances: { user_id: string };
  credit_holds: { user_id: string };
  billing_orders: { user_id: string };
  billing_customers: { user_id: string };
  stored_responses: { user_id: string };
  balance_alerts: { user_id: string };
  alert_deliveries: { user_id: string };
  key_spend_alerts: { user_id: string };
  request_contents: { user_id: string };
  verification: { value: string };
  invitations: { email: string; used_by_user_id: string | null };
};

export interface ErasedAccount {
  /** The id the kept records (ledger, orders, usage) now carry instead of the user's. */
  anonymousId: string;
  /** Revoked keys, for the caller to announce to the key caches. */
  revokedKeyHashes: string[];
}

/**
 * Deletes an account and its personal data, keeping the money records. Its API keys are revoked
 * (and written to the change feed) and their rows deleted; stored conversations, the payment
 * provider's customer link and the role go; the credit ledger, the balance, orders and usage stay,
 * under a new random id that points at nobody (`deleted_…`), so totals and the books still add up.
 * Then better-auth's rows: sessions, the password, pending reset tokens and the user (email, name).
 */
export async function eraseAccount(auth: Auth, store: Store, userId: string, now: number): Promise<ErasedAccount> {
  const anonymousId = `deleted_${randomId(24)}`;
  const revokedKeyHashes = await store.db.transaction().execute(async (transaction) => {
    const hashes = await revokeAllKeysOfUser(transaction, userId, now);
    await transaction.deleteFrom('api_keys').where('user_id', '=', userId).execute();
    await transaction.deleteFrom('user_roles').where('user_id', '=', userId).execute();
    await transaction
      .updateTable('admin_audit_log')
      .set({ target_user_id: anonymousId })
      .where('target_user_id', '=', userId)
      .execute();
    await transaction
      .updateTable('admin_audit_log')
      .set({ actor_user_id: anonymousId })
      .where('actor_user_id', '=', userId)
      .execute();
    const other = transaction.withTables<ErasableTables>();
    await other.deleteFrom('stored_responses').where('user_id', '=', userId).execute();
    await other.deleteFrom('billing_customers').where('user_id', '=', userId).execute();
    // Balance alerts hold a webhook URL and secret, their delivery log what was sent: personal, not books.
    await other.deleteFrom('balance_alerts').where('user_id', '=', userId).execute();
    await other.deleteFrom('alert_deliveries').where('user_id', '=', userId).execute();
    await other.deleteFrom('key_spend_alerts').where('user_id', '=', userId).execute();
    // Kept request and answer bodies (content logging) are the user's own words: erased, never anonymised.
    await other.deleteFrom('request_contents').where('user_id', '=', userId).execute();
    // Invitations hold the invitee's address: the one this account came from, and any to its address.
    const user = await transaction.selectFrom('user').select('email').where('id', '=', userId).executeTakeFirst();
    await other
      .deleteFrom('invitations')
      .where((eb) =>
        eb.or([eb('used_by_user_id', '=', userId), ...(user ? [eb('email', '=', user.email.toLowerCase())] : [])]),
      )
      .execute();
    for (const table of [
      'usage_events',
      'usage_model_users_day',
      'credit_ledger',
      'credit_balances',
      // Open holds (taken in the store while Redis was down) follow the balance they are held against.
      'credit_holds',
      'billing_orders',
    ] as const) {
      await other.updateTable(table).set({ user_id: anonymousId }).where('user_id', '=', userId).execute();
    }
    return hashes;
  });
  // Reset tokens carry the user id as their value.
  await store.db.withTables<ErasableTables>().deleteFrom('verification').where('value', '=', userId).execute();
  await withAuthContext(auth, async (context) => {
    await context.internalAdapter.deleteUser(userId);
    await context.internalAdapter.deleteUserSessions(userId);
  });
  return { anonymousId, revokedKeyHashes };
}

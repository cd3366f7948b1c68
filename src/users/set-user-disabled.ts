import type { Auth } from './create-auth.js';
import type { Store } from '../store/database.js';
import { revokeAllKeysOfUser } from '../keys/revoke-user-keys.js';
import './user-repository.js';
import { withAuthContext } from './auth-async-context.js';

/**
 * Disabling an account ends its sessions, revokes its API keys (permanently: enabling it again
 * does not bring them back, as with `gateway users disable`) and refuses sign-in (create-auth's
 * session hook). Returns the revoked keys' hashes for the caller to announce to the key caches.
 */
export async function setUserDisabled(
  auth: Auth,
  store: Store,
  userId: string,
  disabled: boolean,
  now: number,
): Promise<{ revokedKeyHashes: string[] }> {
  // better-auth keeps booleans as 0/1 on SQLite, which cannot bind a JavaScript boolean.
  const flag = store.dialect === 'sqlite' ? Number(disabled) : disabled;
  const revokedKeyHashes = await store.db.transaction().execute(async (transaction) => {
    await transaction.updateTable('user').set({ disabled: flag }).where('id', '=', userId).execute();
    return disabled ? revokeAllKeysOfUser(transaction, userId, now) : [];
  });
  if (disabled) {
    await withAuthContext(auth, (context) => context.internalAdapter.deleteUserSessions(userId));
  }
  return { revokedKeyHashes };
}

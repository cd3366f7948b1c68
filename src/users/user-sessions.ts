import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

/** better-auth's session table, as far as ending sessions by id needs it. */
type SessionTables = {
  session: { id: string; userId: string };
};

/**
 * Ends sessions by id, only the user's own. The table keeps token hashes (hashed-session-adapter),
 * so better-auth's revoke-by-token cannot name a session other than the caller's.
 */
export async function deleteUserSessionsById(db: Kysely<Database>, userId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .withTables<SessionTables>()
    .deleteFrom('session')
    .where('userId', '=', userId)
    .where('id', 'in', ids)
    .execute();
}

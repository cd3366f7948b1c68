import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../store/schema.js';
import { recordKeyChange } from './api-key-repository.js';

type Executor = Kysely<Database> | Transaction<Database>;

/**
 * Revokes every live key of a user (disabling or deleting the account) and writes each to the
 * change feed, so every instance's key cache drops it. Returns the hashes, for the caller to
 * announce once the transaction has committed (that makes it immediate on this and, with Redis,
 * every instance).
 */
export async function revokeAllKeysOfUser(db: Executor, userId: string, now: number): Promise<string[]> {
  const live = await db
    .selectFrom('api_keys')
    .select(['id', 'key_hash'])
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
  if (live.length === 0) return [];
  await db
    .updateTable('api_keys')
    .set({ revoked_at: now, updated_at: now })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
  for (const key of live) await recordKeyChange(db, key.key_hash, now);
  return live.map((key) => key.key_hash);
}

import type { Kysely, Transaction } from 'kysely';
import type { ApiKeysTable, Database } from '../store/schema.js';

type Executor = Kysely<Database> | Transaction<Database>;

export async function insertApiKey(db: Executor, row: ApiKeysTable): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export async function findApiKeyByHash(db: Executor, keyHash: string): Promise<ApiKeysTable | undefined> {
  return db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
}

/** Every change to a key is written to the change feed so other instances drop their cached copy. */
export async function recordKeyChange(db: Executor, keyHash: string, now: number): Promise<void> {
  await db.insertInto('key_changes').values({ key_hash: keyHash, changed_at: now }).execute();
}

export async function keyChangesSince(db: Executor, afterId: number): Promise<Array<{ id: number; key_hash: string }>> {
  return db
    .selectFrom('key_changes')
    .select(['id', 'key_hash'])
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(1000)
    .execute();
}

export async function latestKeyChangeId(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('key_changes')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  return Number(row?.id ?? 0);
}

/** last_used_at is written in batches, never once per request. */
export async function touchApiKeys(db: Executor, lastUsed: Map<string, number>): Promise<void> {
  for (const [id, at] of lastUsed) {
    await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  }
}

/** The user's live keys, newest first. Revoked keys are gone for good from the account API. */
export async function listApiKeysForUser(db: Executor, userId: string): Promise<ApiKeysTable[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** One live key, only when it belongs to the user: another user's key is indistinguishable from none. */
export async function findApiKeyForUser(
  db: Executor,
  userId: string,
  keyId: string,
): Promise<ApiKeysTable | undefined> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('id', '=', keyId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

export type ApiKeyChanges = Partial<
  Omit<ApiKeysTable, 'id' | 'user_id' | 'key_hash' | 'key_start' | 'key_end' | 'created_at' | 'revoked_at'>
>;

/** Applies changes to a live key of the user; false when there is no such key. */
export async function updateApiKey(
  db: Executor,
  userId: string,
  keyId: string,
  changes: ApiKeyChanges,
): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set(changes)
    .where('id', '=', keyId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Permanent revocation: the row stays (usage history points at it), but the key never works again. */
export async function revokeApiKey(db: Executor, userId: string, keyId: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: now, updated_at: now })
    .where('id', '=', keyId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

import type { Kysely, Transaction } from 'kysely';
import type { ApiKeysTable, Database } from '../store/schema.js';

type Executor = Kysely<Database> | Transaction<Database>;

export async function insertApiKey(db: Executor, row: ApiKeysTable): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** The key whose current secret, or previous secret after a rotation, has this hash. */
export async function findApiKeyByHash(db: Executor, keyHash: string): Promise<ApiKeysTable | undefined> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where((eb) => eb.or([eb('key_hash', '=', keyHash), eb('previous_key_hash', '=', keyHash)]))
    .executeTakeFirst();
}

/**
 * The key for a hash, read in one statement (one snapshot) together with the change feed's
 * position: every change up to `feedPosition` is already reflected in the row. Undefined when no
 * key has this hash (then no change may be skipped).
 */
export async function findApiKeyAtFeedPosition(
  db: Executor,
  keyHash: string,
): Promise<{ row: ApiKeysTable; feedPosition: number } | undefined> {
  const found = await db
    .selectFrom('api_keys')
    .selectAll('api_keys')
    .select((eb) =>
      eb
        .selectFrom('key_changes')
        .select((inner) => inner.fn.max('id').as('id'))
        .as('feed_position'),
    )
    .where((eb) => eb.or([eb('key_hash', '=', keyHash), eb('previous_key_hash', '=', keyHash)]))
    .executeTakeFirst();
  if (!found) return undefined;
  const { feed_position, ...row } = found;
  return { row, feedPosition: Number(feed_position ?? 0) };
}

/** Every hash a key answers to, the previous secret's included: a change must drop each from the caches. */
export function keyHashesOf(row: Pick<ApiKeysTable, 'key_hash' | 'previous_key_hash'>): string[] {
  return row.previous_key_hash ? [row.key_hash, row.previous_key_hash] : [row.key_hash];
}

/**
 * A new secret for a live key of the user: the current one becomes the previous, valid until
 * `previousExpiresAt` (a previous secret still in its grace period is dropped). False when no such key.
 */
export async function rotateApiKeySecret(
  db: Executor,
  userId: string,
  keyId: string,
  secret: { keyHash: string; keyStart: string; keyEnd: string; previousKeyHash: string; previousExpiresAt: number },
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({
      key_hash: secret.keyHash,
      key_start: secret.keyStart,
      key_end: secret.keyEnd,
      previous_key_hash: secret.previousKeyHash,
      previous_key_expires_at: secret.previousExpiresAt,
      updated_at: now,
    })
    .where('id', '=', keyId)
    .where('user_id', '=', userId)
    .where('key_hash', '=', secret.previousKeyHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
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

/**
 * One live key, only when it belongs to the user: another user's key is indistinguishable from none.
 * `lock`: PostgreSQL holds the row until the transaction ends, so a change computed from it cannot
 * race another (SQLite serializes write transactions anyway).
 */
export async function findApiKeyForUser(
  db: Executor,
  userId: string,
  keyId: string,
  options: { lock?: 'postgres' | 'sqlite' } = {},
): Promise<ApiKeysTable | undefined> {
  let query = db
    .selectFrom('api_keys')
    .selectAll()
    .where('id', '=', keyId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  if (options.lock === 'postgres') query = query.forUpdate();
  return query.executeTakeFirst();
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

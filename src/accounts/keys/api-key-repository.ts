import type { Kysely, Transaction } from 'kysely';
import type { ApiKeysTable, Database } from '../../store/schema.js';

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
  return db.selectFrom('key_changes').select(['id', 'key_hash']).where('id', '>', afterId).orderBy('id').limit(1000).execute();
}

export async function latestKeyChangeId(db: Executor): Promise<number> {
  const row = await db.selectFrom('key_changes').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
  return Number(row?.id ?? 0);
}

/** last_used_at is written in batches, never once per request. */
export async function touchApiKeys(db: Executor, lastUsed: Map<string, number>): Promise<void> {
  for (const [id, at] of lastUsed) {
    await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  }
}

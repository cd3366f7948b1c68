import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Reads a setting, creating it with `create()` the first time; concurrent first starts agree on one value. */
export async function getOrCreateSetting(
  db: Kysely<Database>,
  key: string,
  create: () => string,
  now: number,
): Promise<string> {
  const existing = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  if (existing) return existing.value;
  await db
    .insertInto('settings')
    .values({ key, value: create(), updated_at: now })
    .onConflict((conflict) => conflict.column('key').doNothing())
    .execute();
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
  return row.value;
}

/** A setting's value, or undefined when it was never set. */
export async function readSetting(db: Kysely<Database>, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

/** Sets a setting, replacing any value it had. */
export async function putSetting(db: Kysely<Database>, key: string, value: string, now: number): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key, value, updated_at: now })
    .onConflict((conflict) => conflict.column('key').doUpdateSet({ value, updated_at: now }))
    .execute();
}

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

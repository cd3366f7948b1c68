import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Key rotation: a key's previous secret (its hash) keeps working until previous_key_expires_at,
 * so a client can switch to the new secret without downtime. One previous secret per key.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('previous_key_hash', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('previous_key_expires_at', 'bigint').execute();
  await db.schema.createIndex('api_keys_previous_key_hash').on('api_keys').column('previous_key_hash').execute();
}

import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { autoIncrementId } from '../column-types.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('description', 'text', (column) => column.notNull().defaultTo(''))
    .addColumn('key_hash', 'text', (column) => column.notNull().unique())
    .addColumn('key_start', 'text', (column) => column.notNull())
    .addColumn('key_end', 'text', (column) => column.notNull())
    .addColumn('routing_mode', 'text', (column) => column.notNull().defaultTo('code'))
    .addColumn('allowed_models', 'text')
    .addColumn('rpm_limit', 'bigint')
    .addColumn('tpm_limit', 'bigint')
    .addColumn('monthly_quota_micros', 'bigint')
    .addColumn('credit_limit_micros', 'bigint')
    .addColumn('expires_at', 'bigint')
    .addColumn('disabled', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('template_id', 'text')
    .addColumn('default_models', 'text')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_user_id').on('api_keys').column('user_id').execute();

  await db.schema
    .createTable('key_changes')
    .addColumn('id', autoIncrementId(dialect), (column) => column.primaryKey())
    .addColumn('key_hash', 'text', (column) => column.notNull())
    .addColumn('changed_at', 'bigint', (column) => column.notNull())
    .execute();
}

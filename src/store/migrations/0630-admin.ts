import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { autoIncrementId } from '../column-types.js';

/**
 * Roles (`admin` or `user`; a user without a row is `user`) and the admin audit log: one row per
 * action an administrator took, who took it, on whom, and its details as JSON. Frozen: imports
 * nothing from feature code.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('user_roles')
    .addColumn('user_id', 'text', (column) => column.primaryKey())
    .addColumn('role', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema
    .createTable('admin_audit_log')
    .addColumn('id', autoIncrementId(dialect), (column) => column.primaryKey())
    .addColumn('actor_user_id', 'text')
    .addColumn('action', 'text', (column) => column.notNull())
    .addColumn('target_user_id', 'text')
    .addColumn('details', 'text', (column) => column.notNull().defaultTo('{}'))
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('admin_audit_log_target').on('admin_audit_log').column('target_user_id').execute();
}

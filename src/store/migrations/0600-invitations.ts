import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Sign-up invitations (`auth.sign_up: invite`): one row per invitation an administrator issued.
 * Only a SHA-256 of the token is kept; `used_at` makes it single-use.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('invitations')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('email', 'text', (column) => column.notNull())
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('used_by_user_id', 'text')
    .execute();
  await db.schema.createIndex('invitations_email').on('invitations').column('email').execute();
}

import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Credit holds in the store, used only while Redis is down (the hot counters keep holds
 * otherwise): one row per open hold, and their sum on the balance row so that "balance − open
 * holds covers the hold" is one locked check-and-update.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('credit_balances')
    .addColumn('held_nanos', 'bigint', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('credit_holds')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull())
    .addColumn('amount_nanos', 'bigint', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('credit_holds_user_expiry')
    .on('credit_holds')
    .columns(['user_id', 'expires_at'])
    .execute();
}

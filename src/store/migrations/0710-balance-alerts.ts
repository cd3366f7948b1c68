import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Balance alerts (issue 27, item 5): one threshold per user, armed while the balance is at or
 * above it; crossing below fires once (email, and a signed webhook when set) and disarms it until
 * the balance is back up. Every delivery attempt is logged for the user to see.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('balance_alerts')
    .addColumn('user_id', 'text', (column) => column.primaryKey())
    .addColumn('threshold_nanos', 'bigint', (column) => column.notNull())
    .addColumn('email', 'integer', (column) => column.notNull().defaultTo(1))
    .addColumn('webhook_url', 'text')
    .addColumn('webhook_secret', 'text')
    .addColumn('armed', 'integer', (column) => column.notNull().defaultTo(1))
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('balance_alerts_armed').on('balance_alerts').columns(['armed', 'user_id']).execute();
  await db.schema
    .createTable('alert_deliveries')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull())
    .addColumn('channel', 'text', (column) => column.notNull())
    .addColumn('event', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('response_status', 'integer')
    .addColumn('error', 'text')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('alert_deliveries_user_created')
    .on('alert_deliveries')
    .columns(['user_id', 'created_at'])
    .execute();
}

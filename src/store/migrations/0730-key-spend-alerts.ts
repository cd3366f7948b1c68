import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Per-key spend alerts (issue 27, item 5): thresholds per UTC day, ISO week and calendar month on
 * a key; each fires once per period in which the key's spend reaches it (the *_fired_for column
 * holds the start of the period it last fired for). Deliveries go to the balance alerts' log, now
 * with the key they were about. And a key setting (issue 27, item 2): every answer made with the
 * key includes usage.cost.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('key_spend_alerts')
    .addColumn('key_id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull())
    .addColumn('daily_nanos', 'bigint')
    .addColumn('weekly_nanos', 'bigint')
    .addColumn('monthly_nanos', 'bigint')
    .addColumn('daily_fired_for', 'bigint')
    .addColumn('weekly_fired_for', 'bigint')
    .addColumn('monthly_fired_for', 'bigint')
    .addColumn('email', 'integer', (column) => column.notNull().defaultTo(1))
    .addColumn('webhook_url', 'text')
    .addColumn('webhook_secret', 'text')
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('key_spend_alerts_user').on('key_spend_alerts').column('user_id').execute();
  await db.schema.alterTable('alert_deliveries').addColumn('key_id', 'text').execute();
  await db.schema
    .alterTable('api_keys')
    .addColumn('include_cost', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
}

import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { LATENCY_COLUMNS, TTFT_COLUMNS } from '../../statistics/latency-histogram.js';
import { ROLLUP_TABLES, SUM_COLUMNS } from '../../statistics/rollup-schema.js';

/** Statistics rollups: per model and provider per minute, hour and day, plus distinct users per model per day. */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  for (const table of Object.values(ROLLUP_TABLES)) {
    let builder = db.schema
      .createTable(table)
      .addColumn('bucket_start', 'bigint', (column) => column.notNull())
      .addColumn('model_id', 'text', (column) => column.notNull())
      .addColumn('provider_id', 'text', (column) => column.notNull());
    for (const column of [...SUM_COLUMNS, ...LATENCY_COLUMNS, ...TTFT_COLUMNS]) {
      builder = builder.addColumn(column, 'bigint', (definition) => definition.notNull().defaultTo(0));
    }
    await builder.addPrimaryKeyConstraint(`${table}_pk`, ['bucket_start', 'model_id', 'provider_id']).execute();
    await db.schema.createIndex(`${table}_provider`).on(table).columns(['provider_id', 'bucket_start']).execute();
  }
  await db.schema
    .createTable('usage_model_users_day')
    .addColumn('day_start', 'bigint', (column) => column.notNull())
    .addColumn('model_id', 'text', (column) => column.notNull())
    .addColumn('user_id', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('usage_model_users_day_pk', ['day_start', 'model_id', 'user_id'])
    .execute();
}

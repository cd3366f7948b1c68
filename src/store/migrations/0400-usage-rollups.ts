import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Frozen: the table and column names as this migration created them, copied from statistics/ at the time
// (a migration never follows later changes to feature code).
const ROLLUP_TABLES = ['usage_rollup_minute', 'usage_rollup_hour', 'usage_rollup_day'];
const SUM_COLUMNS = [
  'requests',
  'successes',
  'upstream_failures',
  'prompt_tokens',
  'completion_tokens',
  'latency_ms_sum',
  'generation_ms_sum',
  'generation_tokens',
];
/** 21 latency buckets: lh_00…lh_20 (latency), th_00…th_20 (time to first token). */
const HISTOGRAM_SIZE = 21;
const LATENCY_COLUMNS = Array.from({ length: HISTOGRAM_SIZE }, (_, index) => `lh_${String(index).padStart(2, '0')}`);
const TTFT_COLUMNS = Array.from({ length: HISTOGRAM_SIZE }, (_, index) => `th_${String(index).padStart(2, '0')}`);

/** Statistics rollups: per model and provider per minute, hour and day, plus distinct users per model per day. */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  for (const table of ROLLUP_TABLES) {
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

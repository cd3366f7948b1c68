import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { Store } from '../store/database.js';
import { LATENCY_COLUMNS, TTFT_COLUMNS } from './latency-histogram.js';
import { ROLLUP_TABLES, SUM_COLUMNS, type Granularity } from './rollup-schema.js';
import { deltaToRow, type RollupAccumulator } from './rollup-accumulator.js';

const ADDITIVE_COLUMNS = [...SUM_COLUMNS, ...LATENCY_COLUMNS, ...TTFT_COLUMNS];
/** 3 key columns + 50 counters per row; SQLite allows 32,766 parameters a statement. */
const ROWS_PER_STATEMENT = 200;

/** Adds an accumulator's deltas to the rollup tables in one transaction (upserts that add, so flushes from many instances combine). */
export async function writeRollups(store: Store, accumulator: RollupAccumulator): Promise<void> {
  if (accumulator.isEmpty) return;
  await store.db.transaction().execute(async (transaction) => {
    for (const granularity of Object.keys(ROLLUP_TABLES) as Granularity[]) {
      await upsertRows(transaction, ROLLUP_TABLES[granularity], [...accumulator.deltas[granularity].values()].map(deltaToRow));
    }
    const users = [...accumulator.modelUsersByDay.values()].map((entry) => ({ day_start: entry.dayStart, model_id: entry.modelId, user_id: entry.userId }));
    for (let start = 0; start < users.length; start += 1000) {
      await transaction
        .insertInto('usage_model_users_day')
        .values(users.slice(start, start + 1000))
        .onConflict((conflict) => conflict.columns(['day_start', 'model_id', 'user_id']).doNothing())
        .execute();
    }
  });
}

async function upsertRows(db: Kysely<Database>, table: (typeof ROLLUP_TABLES)[Granularity], rows: Record<string, number | string>[]): Promise<void> {
  const untyped = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    await untyped
      .insertInto(table)
      .values(rows.slice(start, start + ROWS_PER_STATEMENT))
      .onConflict((conflict) =>
        conflict.columns(['bucket_start', 'model_id', 'provider_id']).doUpdateSet(
          Object.fromEntries(ADDITIVE_COLUMNS.map((column) => [column, sql`${sql.ref(`${table}.${column}`)} + ${sql.ref(`excluded.${column}`)}`])),
        ),
      )
      .execute();
  }
}

/** Rollups older than these are dropped: minutes serve the 1h window, hours the 24h/7d windows and the day leaderboard. */
export const RETENTION_MS: Record<Granularity, number | null> = { minute: 2 * 86_400_000, hour: 70 * 86_400_000, day: null };

export async function pruneRollups(store: Store, now: number): Promise<void> {
  for (const granularity of Object.keys(ROLLUP_TABLES) as Granularity[]) {
    const retention = RETENTION_MS[granularity];
    if (retention === null) continue;
    await store.db.deleteFrom(ROLLUP_TABLES[granularity]).where('bucket_start', '<', now - retention).execute();
  }
}

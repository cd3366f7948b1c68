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
      await upsertRows(
        transaction,
        ROLLUP_TABLES[granularity],
        [...accumulator.deltas[granularity].values()].map(deltaToRow),
      );
    }
    await addDistinctUsers(
      transaction,
      [...accumulator.modelUsersByDay.values()].map((entry) => ({
        day_start: entry.dayStart,
        model_id: entry.modelId,
        user_id: entry.userId,
      })),
    );
  });
}

/**
 * Records (day, model, user) triples and counts the new ones per day and model. RETURNING after
 * ON CONFLICT DO NOTHING yields only the rows this statement inserted (both databases), so the
 * counts stay exact when several instances flush the same users: the users chart reads a few
 * counts instead of counting hundreds of thousands of rows per call.
 */
async function addDistinctUsers(
  db: Kysely<Database>,
  users: { day_start: number; model_id: string; user_id: string }[],
): Promise<void> {
  const newUsers = new Map<string, { day_start: number; model_id: string; users: number }>();
  // 3 parameters a row: 5,000 rows stay well under SQLite's 32,766 and PostgreSQL's 65,535 per statement.
  for (let start = 0; start < users.length; start += 5000) {
    const inserted = await db
      .insertInto('usage_model_users_day')
      .values(users.slice(start, start + 5000))
      .onConflict((conflict) => conflict.columns(['day_start', 'model_id', 'user_id']).doNothing())
      .returning(['day_start', 'model_id'])
      .execute();
    for (const row of inserted) {
      const key = `${row.day_start}\u0000${row.model_id}`;
      const count = newUsers.get(key);
      if (count) count.users++;
      else newUsers.set(key, { day_start: Number(row.day_start), model_id: row.model_id, users: 1 });
    }
  }
  const counts = [...newUsers.values()];
  for (let start = 0; start < counts.length; start += 1000) {
    await db
      .insertInto('usage_model_users_day_count')
      .values(counts.slice(start, start + 1000))
      .onConflict((conflict) =>
        conflict
          .columns(['day_start', 'model_id'])
          .doUpdateSet({ users: sql`${sql.ref('usage_model_users_day_count.users')} + ${sql.ref('excluded.users')}` }),
      )
      .execute();
  }
}

async function upsertRows(
  db: Kysely<Database>,
  table: (typeof ROLLUP_TABLES)[Granularity],
  rows: Record<string, number | string>[],
): Promise<void> {
  const untyped = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    await untyped
      .insertInto(table)
      .values(rows.slice(start, start + ROWS_PER_STATEMENT))
      .onConflict((conflict) =>
        conflict
          .columns(['bucket_start', 'model_id', 'provider_id'])
          .doUpdateSet(
            Object.fromEntries(
              ADDITIVE_COLUMNS.map((column) => [
                column,
                sql`${sql.ref(`${table}.${column}`)} + ${sql.ref(`excluded.${column}`)}`,
              ]),
            ),
          ),
      )
      .execute();
  }
}

/** Rollups older than these are dropped: minutes serve the 1h window, hours the 24h/7d windows and the day leaderboard. */
export const RETENTION_MS: Record<Granularity, number | null> = {
  minute: 2 * 86_400_000,
  hour: 70 * 86_400_000,
  day: null,
};

export async function pruneRollups(store: Store, now: number): Promise<void> {
  for (const granularity of Object.keys(ROLLUP_TABLES) as Granularity[]) {
    const retention = RETENTION_MS[granularity];
    if (retention === null) continue;
    await store.db
      .deleteFrom(ROLLUP_TABLES[granularity])
      .where('bucket_start', '<', now - retention)
      .execute();
  }
}

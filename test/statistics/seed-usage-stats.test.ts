import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/test-store.js';
import { seedUsageStats, syntheticEvents, type SeedOptions } from '../../src/statistics/seed-usage-stats.js';
import { rollupFromEvents } from '../../src/statistics/usage-stats-recorder.js';
import { pruneRollups } from '../../src/statistics/usage-rollup-writer.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import type { Store } from '../../src/store/database.js';

const DAY = 86_400_000;
const TABLES = [
  'usage_rollup_minute',
  'usage_rollup_hour',
  'usage_rollup_day',
  'usage_model_users_day',
  'usage_model_users_day_count',
];

async function dump(store: Store): Promise<Record<string, unknown[]>> {
  const tables: Record<string, unknown[]> = {};
  for (const table of TABLES) {
    const rows = (await sql`select * from ${sql.table(table)}`.execute(store.db)).rows as Record<string, unknown>[];
    tables[table] = rows
      .map((row) =>
        JSON.stringify(
          Object.entries(row)
            .map(([key, value]) => [key, String(value)])
            .sort(),
        ),
      )
      .sort();
  }
  return tables;
}

describe.each(STORE_KINDS)('seeding statistics on %s', (storeKind) => {
  const stores: TestStore[] = [];
  const newStore = async (options?: { migrate?: boolean }) => {
    const store = await createTestStore(storeKind, options);
    stores.push(store);
    return store.store;
  };
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.cleanup()));
  });

  it('leaves exactly the rows the recorder path leaves (all events folded, written, then pruned)', async () => {
    const now = Date.UTC(2025, 2, 10, 12, 0, 0);
    // Five days: minute rows older than two days exist in the recorder path until pruning, never in the seeded one.
    const options: SeedOptions = {
      events: 3000,
      now,
      spanMs: 4 * DAY,
      models: ['a/one', 'b/two', 'c/three'],
      providers: ['p1', 'p2'],
      users: 40,
      seed: 7,
      batchSize: 900,
    };
    const seeded = await newStore();
    await seedUsageStats(seeded, options);
    const recorded = await newStore();
    await rollupFromEvents(recorded, syntheticEvents(options));
    await pruneRollups(recorded, now);
    const [seededRows, recordedRows] = [await dump(seeded), await dump(recorded)];
    expect(seededRows.usage_rollup_minute.length).toBeGreaterThan(100);
    expect(seededRows.usage_model_users_day_count.length).toBeGreaterThan(5);
    expect(seededRows).toEqual(recordedRows);
  });

  it('counts each distinct user once per model and day, across writes', async () => {
    const store = await newStore();
    const day = Date.UTC(2025, 2, 10);
    const event = (userId: string, modelId = 'a/one') => ({
      timestamp: day + 1000,
      modelId,
      providerId: 'p1',
      userId,
      promptTokens: 1,
      completionTokens: 1,
      latencyMs: 10,
      ttftMs: 5,
      status: 200,
    });
    await rollupFromEvents(store, [event('u1'), event('u2'), event('u1', 'b/two')]);
    await rollupFromEvents(store, [event('u2'), event('u3'), event('u3')]);
    const counts = await store.db
      .selectFrom('usage_model_users_day_count')
      .select(['model_id', 'users'])
      .orderBy('model_id')
      .execute();
    expect(counts.map((row) => [row.model_id, Number(row.users)])).toEqual([
      ['a/one', 3],
      ['b/two', 1],
    ]);
  });

  it('fills the user counts from rows recorded before the counts existed (migration 0401)', async () => {
    const store = await newStore({ migrate: false });
    await migrateToLatest(
      store,
      MIGRATIONS.filter((migration) => migration.name < '0401'),
    );
    await store.db
      .insertInto('usage_model_users_day')
      .values([
        { day_start: 0, model_id: 'a/one', user_id: 'u1' },
        { day_start: 0, model_id: 'a/one', user_id: 'u2' },
        { day_start: DAY, model_id: 'a/one', user_id: 'u1' },
      ])
      .execute();
    await migrateToLatest(store);
    const counts = await store.db
      .selectFrom('usage_model_users_day_count')
      .select(['day_start', 'users'])
      .orderBy('day_start')
      .execute();
    expect(counts.map((row) => [Number(row.day_start), Number(row.users)])).toEqual([
      [0, 2],
      [DAY, 1],
    ]);
  });
});

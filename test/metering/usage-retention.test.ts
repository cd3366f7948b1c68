import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Store } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { maintainUsage, startUsageMaintenance } from '../../src/metering/usage-retention.js';
import { ensureUsagePartitions, listUsagePartitions } from '../../src/metering/usage-partitions.js';
import { readUsageRetention } from '../../src/metering/activity-settings.js';
import { loadConfig } from '../../src/config/load-config.js';
import { ConfigError } from '../../src/config/config-error.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/test-store.js';
import { usageEventRow } from '../helpers/usage-events.js';

/** Issue 27, item 6: usage rows' retention (both stores) and PostgreSQL's monthly partitions. */
const DAY_MS = 86_400_000;
const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);

async function insertEvents(store: Store, createdAt: number[], prefix = 'evt'): Promise<void> {
  await store.db
    .insertInto('usage_events')
    .values(
      createdAt.map((at, index) =>
        usageEventRow({
          id: `${prefix}_${index}`,
          request_id: `req_${prefix}_${index}`,
          user_id: 'u1',
          requested_model: 'model-a',
          created_at: at,
        }),
      ),
    )
    .execute();
}

async function eventIds(store: Store): Promise<string[]> {
  const rows = await store.db.selectFrom('usage_events').select('id').orderBy('id').execute();
  return rows.map((row) => row.id);
}

/** The partition a row lives in (PostgreSQL). */
async function partitionOfRow(store: Store, id: string): Promise<string> {
  const result = await sql<{ partition: string }>`
    select tableoid::regclass::text as partition from usage_events where id = ${id}`.execute(store.db);
  return result.rows[0].partition.replace(/^.*\./, '');
}

let testStore: TestStore | undefined;
afterEach(async () => {
  await testStore?.cleanup();
  testStore = undefined;
});

describe.each(STORE_KINDS)('usage retention (%s)', (kind) => {
  it('keeps every row by default (retention 0)', async () => {
    testStore = await createTestStore(kind);
    const { store } = testStore;
    await insertEvents(store, [NOW - 800 * DAY_MS, NOW - 40 * DAY_MS, NOW - DAY_MS]);
    const report = await maintainUsage(store, NOW, readUsageRetention(loadConfig({ text: '', env: {} }).config));
    expect(report.deletedRows).toBe(0);
    expect(report.droppedPartitions).toEqual([]);
    expect(await eventIds(store)).toEqual(['evt_0', 'evt_1', 'evt_2']);
  });

  it('deletes the rows past the retention in bounded batches and keeps the recent ones', async () => {
    testStore = await createTestStore(kind);
    const { store } = testStore;
    // 7 old rows in the current month (the boundary month: deleted row by row), 3 within 30 days.
    const old = Array.from({ length: 7 }, (_, index) => NOW - 31 * DAY_MS - index * 1000);
    await insertEvents(store, old, 'old');
    await insertEvents(store, [NOW - 29 * DAY_MS, NOW - DAY_MS, NOW], 'new');
    const report = await maintainUsage(store, NOW, { retentionDays: 30, batchRows: 3 });
    expect(report.deletedRows).toBe(7);
    expect(await eventIds(store)).toEqual(['new_0', 'new_1', 'new_2']);
    // A second round finds nothing more to do.
    expect((await maintainUsage(store, NOW, { retentionDays: 30, batchRows: 3 })).deletedRows).toBe(0);
  });

  it('runs as a service: a round at start, stopped by close', async () => {
    testStore = await createTestStore(kind);
    const { store } = testStore;
    await insertEvents(store, [NOW - 100 * DAY_MS, NOW]);
    const errors: unknown[] = [];
    const maintenance = startUsageMaintenance(
      { store, clock: { now: () => NOW }, settings: () => ({ retentionDays: 90 }) },
      3_600_000,
      (error) => errors.push(error),
    );
    await maintenance.close();
    expect(errors).toEqual([]);
    expect(await eventIds(store)).toEqual(['evt_1']);
  });
});

describe('activity.retention_days (config)', () => {
  it('defaults to 0 and reads a positive number of days', () => {
    expect(readUsageRetention(loadConfig({ text: '', env: {} }).config)).toEqual({ retentionDays: 0 });
    const config = loadConfig({ text: 'activity:\n  retention_days: 90\n', env: {} }).config;
    expect(readUsageRetention(config)).toEqual({ retentionDays: 90 });
  });

  it('refuses a negative or fractional retention with a ConfigError naming the field', () => {
    for (const value of ['-1', '1.5', 'forever']) {
      const config = loadConfig({ text: `activity:\n  retention_days: ${value}\n`, env: {} }).config;
      let thrown: unknown;
      try {
        readUsageRetention(config);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ConfigError);
      expect((thrown as Error).message).toMatch(/activity\.retention_days/);
    }
  });
});

describe('usage_events partitions (postgres)', () => {
  it('migration 0740 turns a table with rows into monthly partitions and keeps every row', async () => {
    testStore = await createTestStore('postgres', { migrate: false });
    const { store } = testStore;
    await migrateToLatest(
      store,
      MIGRATIONS.filter((migration) => migration.name < '0740'),
    );
    await insertEvents(store, [Date.UTC(2024, 0, 10), Date.UTC(2024, 0, 20), Date.UTC(2025, 5, 1), NOW]);
    await migrateToLatest(store);
    expect(await eventIds(store)).toEqual(['evt_0', 'evt_1', 'evt_2', 'evt_3']);
    expect(await partitionOfRow(store, 'evt_0')).toBe('usage_events_p202401');
    expect(await partitionOfRow(store, 'evt_2')).toBe('usage_events_p202506');
    const names = (await listUsagePartitions(store.db)).map((partition) => partition.name);
    expect(names).toEqual(expect.arrayContaining(['usage_events_p202401', 'usage_events_p202506']));
    // The indexes are there, on every partition, and a repeated id (same time) is still refused.
    const indexes = await sql<{ count: string }>`select count(*) as count from pg_indexes
      where schemaname = current_schema() and tablename = 'usage_events_p202401'`.execute(store.db);
    expect(Number(indexes.rows[0].count)).toBeGreaterThanOrEqual(10);
    await expect(insertEvents(store, [Date.UTC(2024, 0, 10)])).rejects.toThrow(/duplicate key/);
  });

  it('puts a future month in its partition, a month without one in DEFAULT until the worker moves it', async () => {
    testStore = await createTestStore('postgres');
    const { store } = testStore;
    const now = Date.now();
    await ensureUsagePartitions(store.db, now);
    const nextMonth = new Date(now);
    const inNextMonth = Date.UTC(nextMonth.getUTCFullYear(), nextMonth.getUTCMonth() + 1, 15);
    const farAhead = Date.UTC(nextMonth.getUTCFullYear() + 3, 6, 4);
    await insertEvents(store, [inNextMonth, farAhead]);
    const ahead = new Date(inNextMonth);
    const aheadName = `usage_events_p${ahead.getUTCFullYear()}${String(ahead.getUTCMonth() + 1).padStart(2, '0')}`;
    expect(await partitionOfRow(store, 'evt_0')).toBe(aheadName);
    expect(await partitionOfRow(store, 'evt_1')).toBe('usage_events_default');

    const report = await maintainUsage(store, now, { retentionDays: 0 });
    const farName = `usage_events_p${nextMonth.getUTCFullYear() + 3}07`;
    expect(report.createdPartitions).toContain(farName);
    expect(await partitionOfRow(store, 'evt_1')).toBe(farName);
    expect(await eventIds(store)).toEqual(['evt_0', 'evt_1']);
  });

  it('retention drops whole months past it and deletes row by row within the boundary month', async () => {
    testStore = await createTestStore('postgres');
    const { store } = testStore;
    // Rows of Jan 2024 and Mar 2024 (whole months past), and of the boundary month (Oct 2026).
    await insertEvents(store, [Date.UTC(2024, 0, 5), Date.UTC(2024, 2, 5)], 'gone');
    await insertEvents(store, [Date.UTC(2026, 9, 2), Date.UTC(2026, 9, 30)], 'edge');
    await ensureUsagePartitions(store.db, NOW);
    expect(await partitionOfRow(store, 'gone_0')).toBe('usage_events_p202401');

    // 30 days before NOW is 27 Oct 2026: Oct 2 goes, Oct 30 stays.
    const report = await maintainUsage(store, NOW, { retentionDays: 30 });
    expect(report.droppedPartitions).toEqual(expect.arrayContaining(['usage_events_p202401', 'usage_events_p202403']));
    expect(report.droppedPartitions).not.toContain('usage_events_p202610');
    expect(report.deletedRows).toBe(1);
    expect(await eventIds(store)).toEqual(['edge_1']);
    const names = (await listUsagePartitions(store.db)).map((partition) => partition.name);
    expect(names).not.toContain('usage_events_p202401');
    expect(names).toContain('usage_events_p202610');
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect, type CompiledQuery } from 'kysely';
import type { Database } from '../store/schema.js';
import { openStore } from '../store/database.js';
import { migrateToLatest } from '../store/migrate.js';
import { usageEventRow } from '../../test/helpers/usage-events.js';
import { listActivity, type ActivityFilter } from './activity-query.js';
import { usageReport } from './usage-report.js';

/**
 * SQLite's indexes of the error-code and app filters hold only rows that have one (migration
 * 0702): the filters' queries must still be answered from them, and find the rows.
 */
describe('activity filters on SQLite and their partial indexes', () => {
  const folder = mkdtempSync(join(tmpdir(), 'activity-indexes-'));
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('the error-code and app filters read their partial index and find their rows', async () => {
    const file = join(folder, 'gateway.db');
    const store = openStore(`sqlite:${file}`);
    await migrateToLatest(store);
    const now = Date.UTC(2026, 10, 26);
    await store.db
      .insertInto('usage_events')
      .values([
        usageEventRow({ id: 'usage_1', user_id: 'user-1', created_at: now }),
        usageEventRow({
          id: 'usage_2',
          user_id: 'user-1',
          created_at: now + 1,
          status: 502,
          error_code: 'upstream_error',
        }),
        usageEventRow({ id: 'usage_3', user_id: 'user-1', created_at: now + 2, app: 'Cline' }),
      ])
      .execute();
    await store.destroy();

    const sqlite = new SqliteDatabase(file);
    const queries: CompiledQuery[] = [];
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: sqlite }),
      log: (event) => {
        if (event.level === 'query') queries.push(event.query);
      },
    });
    const cases: Array<[ActivityFilter, string, string[]]> = [
      [{ status: 'upstream_error' }, 'usage_events_user_error_page', ['usage_2']],
      [{ app: 'Cline' }, 'usage_events_user_app_page', ['usage_3']],
    ];
    try {
      for (const [filter, index, ids] of cases) {
        queries.length = 0;
        const page = await listActivity(db, 'user-1', filter, { limit: 10 });
        expect(page.rows.map((row) => row.id)).toEqual(ids);
        const [query] = queries;
        const plan = sqlite.prepare(`explain query plan ${query.sql}`).all(...query.parameters) as { detail: string }[];
        expect(plan.map((row) => row.detail).join('\n')).toContain(`USING INDEX ${index} (user_id=? AND`);
      }
      // Only the rows that have one are in each index.
      const partial = sqlite
        .prepare(`select name from sqlite_master where type = 'index' and sql like '%is not null%' order by name`)
        .all() as { name: string }[];
      expect(partial.map((row) => row.name)).toEqual(['usage_events_user_app_page', 'usage_events_user_error_page']);
    } finally {
      await db.destroy();
    }
  });

  it('no (user_id, created_at) index beside (user_id, created_at, id); the usage report reads its date range, per key too', async () => {
    const file = join(folder, 'gateway.db');
    const store = openStore(`sqlite:${file}`);
    await migrateToLatest(store);
    const day = Date.UTC(2026, 10, 26);
    await store.db
      .insertInto('usage_events')
      .values([
        usageEventRow({ id: 'usage_1', user_id: 'user-1', key_id: 'key-a', cost_nanos: 5, created_at: day + 1 }),
        usageEventRow({ id: 'usage_2', user_id: 'user-1', key_id: 'key-a', cost_nanos: 7, created_at: day + 2 }),
        usageEventRow({ id: 'usage_3', user_id: 'user-1', key_id: 'key-b', cost_nanos: 1, created_at: day + 3 }),
        usageEventRow({ id: 'usage_4', user_id: 'user-1', key_id: null, cost_nanos: 2, created_at: day + 4 }),
        // Outside the range: the day before.
        usageEventRow({ id: 'usage_5', user_id: 'user-1', key_id: 'key-a', cost_nanos: 100, created_at: day - 1 }),
      ])
      .execute();
    await store.destroy();

    const sqlite = new SqliteDatabase(file);
    const queries: CompiledQuery[] = [];
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: sqlite }),
      log: (event) => {
        if (event.level === 'query') queries.push(event.query);
      },
    });
    try {
      const indexes = sqlite
        .prepare(`select name from sqlite_master where type = 'index' and tbl_name = 'usage_events'`)
        .all() as { name: string }[];
      expect(indexes.map((row) => row.name)).not.toContain('usage_events_user_created');
      const report = await usageReport(db, 'user-1', day, day + 86_400_000);
      expect(report.totals.costNanos).toBe(15);
      expect(report.byKey.map((row) => [row.keyId, row.requests, row.costNanos])).toEqual([
        ['key-a', 2, 12],
        ['key-b', 1, 1],
      ]);
      expect(queries).toHaveLength(4);
      for (const query of queries) {
        const plan = sqlite.prepare(`explain query plan ${query.sql}`).all(...query.parameters) as { detail: string }[];
        expect(plan.map((row) => row.detail).join('\n')).toContain(
          'USING INDEX usage_events_user_page (user_id=? AND created_at>? AND created_at<?)',
        );
      }
    } finally {
      await db.destroy();
    }
  });
});

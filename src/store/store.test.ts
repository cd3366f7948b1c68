import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestStore, STORE_KINDS, type TestStore } from '../../test/helpers/test-store.js';
import { openStore, type Store } from './database.js';
import { migrateToLatest } from './migrate.js';
import { MIGRATIONS } from './migrations/index.js';
import { getOrCreateSetting } from './settings-repository.js';

describe.each(STORE_KINDS)('store on %s', (kind) => {
  let testStore: TestStore | undefined;
  afterEach(async () => {
    await testStore?.cleanup();
    testStore = undefined;
  });

  it('migrates twice without changes the second time', async () => {
    testStore = await createTestStore(kind);
    const second = await migrateToLatest(testStore.store);
    expect(second.applied).toEqual([]);
  });

  it('creates a setting once, even when two callers race', async () => {
    testStore = await createTestStore(kind);
    const { store } = testStore;
    const [first, second] = await Promise.all([
      getOrCreateSetting(store.db, 'auth_secret', () => 'one', 1),
      getOrCreateSetting(store.db, 'auth_secret', () => 'two', 1),
    ]);
    expect(first).toBe(second);
  });
});

describe('migrations on PostgreSQL', () => {
  let testStore: TestStore | undefined;
  let timed: Store | undefined;
  afterEach(async () => {
    await timed?.destroy();
    timed = undefined;
    await testStore?.cleanup();
    testStore = undefined;
  });

  it('run without the statement timeout that still bounds every other query', async () => {
    testStore = await createTestStore('postgres');
    // 100 ms on the server, 1.1 s on the client: a 1.5 s statement outlives both by far.
    timed = openStore(testStore.url, { searchPath: testStore.searchPath, statementTimeoutMs: 100, poolSize: 2 });
    await expect(sql`select pg_sleep(1.5)`.execute(timed.db)).rejects.toThrow(/statement timeout/);
    let shown: string | undefined;
    const slow = {
      name: '9999-slow-test',
      async up(db: Parameters<(typeof MIGRATIONS)[number]['up']>[0]) {
        shown = (await sql<{ statement_timeout: string }>`show statement_timeout`.execute(db)).rows[0]
          ?.statement_timeout;
        await sql`select pg_sleep(1.5)`.execute(db);
        await sql`create table slow_test_done (id integer)`.execute(db);
      },
    };
    const report = await migrateToLatest(timed, [...MIGRATIONS, slow]);
    expect(report.applied).toEqual(['9999-slow-test']);
    expect(shown).toBe('0');
    await expect(sql`select count(*) from slow_test_done`.execute(timed.db)).resolves.toBeDefined();
    // The store's own connections keep their limit after the migration.
    await expect(sql`select pg_sleep(1.5)`.execute(timed.db)).rejects.toThrow(/statement timeout/);
  });

  it('migrate into the schema PGOPTIONS names, as a `gateway serve` child is given it', async () => {
    testStore = await createTestStore('postgres');
    const schema = `pgoptions_${Math.random().toString(36).slice(2, 10)}`;
    await sql.raw(`create schema ${schema}`).execute(testStore.store.db);
    const before = process.env.PGOPTIONS;
    process.env.PGOPTIONS = `-c search_path=${schema}`;
    try {
      timed = openStore(testStore.url, { poolSize: 1 });
      await migrateToLatest(timed);
      await expect(getOrCreateSetting(timed.db, 'auth_secret', () => 'one', 1)).resolves.toBe('one');
      const found = await sql<{ name: string | null }>`select to_regclass(${`${schema}.settings`}) as name`.execute(
        testStore.store.db,
      );
      expect(found.rows[0]?.name).not.toBeNull();
    } finally {
      if (before === undefined) delete process.env.PGOPTIONS;
      else process.env.PGOPTIONS = before;
      await timed?.destroy();
      timed = undefined;
      await sql.raw(`drop schema ${schema} cascade`).execute(testStore.store.db);
    }
  });

  it('reports a failing migration by name and rolls it back whole', async () => {
    testStore = await createTestStore('postgres');
    const broken = {
      name: '9999-broken-test',
      async up(db: Parameters<(typeof MIGRATIONS)[number]['up']>[0]) {
        await sql`create table broken_test_half (id integer)`.execute(db);
        await sql`select * from no_such_table`.execute(db);
      },
    };
    await expect(migrateToLatest(testStore.store, [...MIGRATIONS, broken])).rejects.toThrow(
      /migration 9999-broken-test failed: .*no_such_table/,
    );
    const left = await sql<{ name: string | null }>`select to_regclass('broken_test_half') as name`.execute(
      testStore.store.db,
    );
    expect(left.rows[0]?.name).toBeNull();
  });
});

describe('the SQLite connection', () => {
  it('keeps temporary files in memory (a settlement batch no longer opens one for its statement journal)', async () => {
    const store = openStore('sqlite::memory:');
    try {
      const { rows } = await sql<{ temp_store: number }>`pragma temp_store`.execute(store.db);
      // 2 = MEMORY (0 = the build's default, which puts them in files).
      expect(rows[0]?.temp_store).toBe(2);
    } finally {
      await store.destroy();
    }
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openStore, type Store } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { randomId } from '../../src/shared/ids.js';

/** The PostgreSQL the machine runs (CI starts it if it is down). Override with TEST_POSTGRES_URL. */
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export type StoreKind = 'sqlite' | 'postgres';
export const STORE_KINDS: StoreKind[] = ['sqlite', 'postgres'];

export interface TestStore {
  store: Store;
  /** A URL another instance can open to share this store (the same file or schema). */
  url: string;
  /** Options another instance must pass to openStore to see the same data. */
  searchPath?: string;
  cleanup(): Promise<void>;
}

/**
 * A fresh, migrated store: a SQLite file in a temp folder, or a PostgreSQL schema of its own
 * (so test files running in parallel never see each other's rows). Real databases, no mocks.
 */
export async function createTestStore(kind: StoreKind, options: { migrate?: boolean } = {}): Promise<TestStore> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-test-'));
    const url = `sqlite:${join(dir, 'gateway.db')}`;
    const store = openStore(url);
    if (options.migrate !== false) await migrateToLatest(store);
    return {
      store,
      url,
      async cleanup() {
        await store.destroy();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `test_${randomId(12).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const store = openStore(TEST_POSTGRES_URL, { searchPath: schema, poolSize: 5 });
  if (options.migrate !== false) await migrateToLatest(store);
  return {
    store,
    url: TEST_POSTGRES_URL,
    searchPath: schema,
    async cleanup() {
      await store.destroy();
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}

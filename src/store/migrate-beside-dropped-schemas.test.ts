import { PostgresIntrospector } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestStore, TEST_POSTGRES_URL, type TestStore } from '../../test/helpers/test-store.js';
import { randomId } from '../shared/ids.js';
import { migrateToLatest } from './migrate.js';

/**
 * Kysely's migrator lists the tables of every schema of the database; on a server shared by
 * schemas per test (or per tenant), another schema dropped during that listing failed our
 * migration with `schema "…" does not exist` (seen in the suite: a test's store failed to migrate
 * while another test dropped its schema).
 */
describe('migrating on PostgreSQL beside schemas that others drop', () => {
  const stores: TestStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.cleanup();
  });

  it('the migrations’ introspector sees what Kysely’s sees of the store’s own schema, and nothing else', async () => {
    const testStore = await createTestStore('postgres');
    stores.push(testStore);
    const other = await createTestStore('postgres');
    stores.push(other);
    const [ours, kyselys] = await testStore.store.withoutStatementTimeout(async (db) => [
      await db.introspection.getTables({ withInternalKyselyTables: true }),
      await new PostgresIntrospector(db).getTables({ withInternalKyselyTables: true }),
    ]);
    const own = kyselys.filter((table) => table.schema === testStore.searchPath);
    expect(own.length).toBeGreaterThan(10);
    // Kysely's lists the other test's schema too; ours only the store's own, identically.
    expect(kyselys.some((table) => table.schema === other.searchPath)).toBe(true);
    expect(ours).toEqual(own);
  });

  it('fresh schemas migrate while other clients create and drop schemas with tables', async () => {
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    let churning = true;
    const churn = (async () => {
      while (churning) {
        const schema = `churn_${randomId(12).toLowerCase()}`;
        await admin.query(`CREATE SCHEMA ${schema}`);
        await admin.query(`CREATE TABLE ${schema}.t (id serial primary key, a text, b text, c text)`);
        await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      }
    })();
    try {
      for (let round = 0; round < 6; round++) {
        const fresh = await Promise.all(Array.from({ length: 3 }, () => createTestStore('postgres')));
        stores.push(...fresh);
      }
    } finally {
      churning = false;
      await churn;
      await admin.end();
    }
    for (const store of stores) expect((await migrateToLatest(store.store)).applied).toEqual([]);
  }, 120_000);
});

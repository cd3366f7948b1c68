import { Migrator, sql, type Migration, type MigrationProvider, type Kysely } from 'kysely';
import type { Store } from './database.js';
import { MIGRATIONS, type FeatureMigration } from './migrations/index.js';

export interface MigrationReport {
  applied: string[];
}

/** Runs every pending migration in name order, on SQLite or PostgreSQL alike. Features own number ranges, so a
 * feature merged later may add a lower number than one already applied: unordered runs are allowed. */
export async function migrateToLatest(
  store: Store,
  migrations: FeatureMigration[] = MIGRATIONS,
): Promise<MigrationReport> {
  const provider: MigrationProvider = {
    async getMigrations() {
      const result: Record<string, Migration> = {};
      for (const migration of migrations) {
        result[migration.name] = { up: (db: Kysely<unknown>) => migration.up(db, store.dialect) };
      }
      return result;
    },
  };
  // Kysely looks for its tables in every schema unless told which one; with schemas per test (or
  // per tenant) another schema's lock table would make it skip creating ours.
  const migrationTableSchema =
    store.dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(store.db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db: store.db,
    provider,
    migrationTableName: 'gateway_migrations',
    migrationLockTableName: 'gateway_migrations_lock',
    migrationTableSchema,
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    throw new Error(
      `migration ${failed?.migrationName ?? '(unknown)'} failed: ${(error as Error).message ?? String(error)}`,
      { cause: error },
    );
  }
  return {
    applied: (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName),
  };
}

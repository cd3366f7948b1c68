import { Migrator, sql, type Migration, type MigrationProvider, type Kysely } from 'kysely';
import type { Dialect, Store } from './database.js';
import type { Database } from './schema.js';
import { MIGRATIONS, type FeatureMigration } from './migrations/index.js';

export interface MigrationReport {
  applied: string[];
}

/**
 * Runs every pending migration in name order, on SQLite or PostgreSQL alike. Features own number ranges, so a
 * feature merged later may add a lower number than one already applied: unordered runs are allowed.
 * Migrations run without the store's statement timeout (`database.statement_timeout_ms` is for
 * requests' queries): rewriting a large table takes as long as it takes, and an instance that
 * starts meanwhile waits on the migration lock instead of failing.
 */
export async function migrateToLatest(
  store: Store,
  migrations: FeatureMigration[] = MIGRATIONS,
): Promise<MigrationReport> {
  return store.withoutStatementTimeout((db) => migrate(db, store.dialect, migrations));
}

async function migrate(
  db: Kysely<Database>,
  dialect: Dialect,
  migrations: FeatureMigration[],
): Promise<MigrationReport> {
  const provider: MigrationProvider = {
    async getMigrations() {
      const result: Record<string, Migration> = {};
      for (const migration of migrations) {
        result[migration.name] = { up: (transaction: Kysely<unknown>) => migration.up(transaction, dialect) };
      }
      return result;
    },
  };
  // Kysely looks for its tables in every schema unless told which one; with schemas per test (or
  // per tenant) another schema's lock table would make it skip creating ours.
  const migrationTableSchema =
    dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db,
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

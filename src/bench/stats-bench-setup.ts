import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import { openStore, type Dialect, type Store } from '../store/database.js';
import { migrateToLatest } from '../store/migrate.js';
import { loadConfig } from '../config/load-config.js';
import { createProviderRegistry } from '../providers/provider-registry.js';
import { createLogger } from '../shared/logger.js';
import { buildApp, type GatewayApp } from '../app.js';
import { loadCatalogData } from '../catalog/load-catalog-data.js';
import { CATALOG_OFFER_PRESETS } from '../catalog/catalog-offer-presets.js';

const BENCH_STATEMENT_TIMEOUT_MS = 4 * 3_600_000;

export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** Providers of the seeded traffic: preset ids, so the catalog gives each of them models and their stats pages exist. */
export const BENCH_PROVIDERS = [...new Set(Object.values(CATALOG_OFFER_PRESETS).map((route) => route.preset))];

/** The first `count` priced catalog models, by id: real names, so rankings look up real catalog entries. */
export function benchModels(count: number): string[] {
  return loadCatalogData()
    .models.filter((model) => model.pricing && model.offers.length > 0)
    .map((model) => model.id)
    .sort()
    .slice(0, count);
}

export interface BenchStore {
  dialect: Dialect;
  store: Store;
  description: string;
  cleanup(): Promise<void>;
}

/** A fresh, migrated store of its own: a SQLite file in a temp folder, or a dedicated PostgreSQL schema dropped afterwards. */
export async function openBenchStore(dialect: Dialect, postgresUrl: string): Promise<BenchStore> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'stats-bench-'));
    const store = openStore(`sqlite:${join(dir, 'gateway.db')}`);
    await migrateToLatest(store);
    return {
      dialect,
      store,
      description: store.description,
      async cleanup() {
        await store.destroy();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `bench_stats_${randomBytes(6).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE SCHEMA ${schema}`);
  // Building an index over tens of millions of seeded rows outlasts the gateway's 30 s statement timeout.
  const store = openStore(postgresUrl, {
    searchPath: schema,
    poolSize: 4,
    statementTimeoutMs: BENCH_STATEMENT_TIMEOUT_MS,
  });
  try {
    await migrateToLatest(store);
  } catch (error) {
    await store.destroy();
    await admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    throw error;
  }
  return {
    dialect,
    store,
    description: `${store.description} (schema ${schema})`,
    async cleanup() {
      await store.destroy();
      await admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
}

/** Rows per statistics table: what the endpoints read. */
export async function countRollupRows(store: Store): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ['usage_rollup_minute', 'usage_rollup_hour', 'usage_rollup_day', 'usage_model_users_day']) {
    const result = await sql<{ count: string | number }>`select count(*) as count from ${sql.table(table)}`.execute(
      store.db,
    );
    counts[table] = Number(result.rows[0].count);
  }
  return counts;
}

/**
 * PostgreSQL: refreshes the planner's statistics after the bulk load, as autovacuum would on a live
 * database. SQLite is left as a live gateway leaves it (nothing runs ANALYZE there).
 */
export async function analyzeAfterLoad(store: Store): Promise<void> {
  if (store.dialect === 'postgres') await sql`analyze`.execute(store.db);
}

/**
 * The gateway on the seeded store, listening on a free port. The providers point at a closed
 * port: no chat traffic is sent, only statistics are read. `statsCacheMs` 0 turns the 5 s memo off.
 */
export async function startBenchGateway(
  store: Store,
  statsCacheMs: number | undefined,
): Promise<{ gateway: GatewayApp; url: string }> {
  const providers = BENCH_PROVIDERS.map(
    (id) => `  - { id: ${id}, base_url: "http://127.0.0.1:9/v1", api_key: bench }`,
  ).join('\n');
  const catalog = statsCacheMs === undefined ? '' : `catalog:\n  stats_cache_ms: ${statsCacheMs}\n`;
  const { config } = loadConfig({
    text: `providers:\n${providers}\n${catalog}`,
    env: {},
    knownProviderTypes: [...createProviderRegistry().keys()],
  });
  const gateway = await buildApp({ config, store, logger: createLogger('error') });
  const url = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  return { gateway, url };
}

/**
 * Activity benchmark (issue 27, item 6): seeds N requests into usage_events (default 1 million;
 * the figure is 100 million over 100,000 users) and measures p50/p99 of the activity
 * list's queries for the busiest account (a tenth of all rows), on SQLite and PostgreSQL: the
 * first page, a page filtered by key, a page filtered to failures, a deep page (a cursor 10,000
 * rows in) and a lookup by request id. The queries are the API's own (metering/activity-query.ts),
 * called on the store directly: the figures are the database's, without HTTP around them.
 *
 *   node dist/bench/activity-bench.js [--rows N] [--users N] [--databases sqlite,postgres]
 *     [--iterations N] [--postgres-url URL] [--output FILE] [--smoke]
 *
 * Writes bench/results/activity-latest.json. See docs/benchmarks-activity.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import type { Dialect, Store } from '../store/database.js';
import { findActivity, listActivity, type ActivityFilter } from '../metering/activity-query.js';
import type { ActivityCursor } from '../metering/activity-cursor.js';
import { summarize, type LatencySummary } from './percentiles.js';
import { DEFAULT_POSTGRES_URL, openBenchStore } from './stats-bench-setup.js';
import { HEAVY_KEY, HEAVY_USER, seedActivity } from './activity-bench-seed.js';

export const TARGET_P99_MS = 50;
const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DAY_MS = 86_400_000;
const PAGE = 50;
/** The deep page starts this many rows into the busiest account's list. */
const DEEP_ROWS = 10_000;

export interface ActivityBenchOptions {
  rows: number;
  users: number;
  databases: Dialect[];
  iterations: number;
  warmup: number;
  postgresUrl: string;
  output: string;
}

export interface ActivityResult extends LatencySummary {
  database: Dialect;
  query: string;
  /** Rows the query answered (a page's rows; 1 for a lookup that found its request): a page of 0 measures nothing. */
  returned: number;
  meetsTarget: boolean;
}

export interface ActivityBenchReport {
  generatedAt: string;
  machine: { cpus: number; cpuModel: string; loadAverage: number[]; node: string };
  options: Omit<ActivityBenchOptions, 'output' | 'postgresUrl'>;
  targetP99Ms: number;
  databases: { database: Dialect; description: string; seedSeconds: number; rows: number; heavyRows: number }[];
  results: ActivityResult[];
}

export function parseArguments(argv: string[]): ActivityBenchOptions {
  const value = (name: string) => {
    const index = argv.indexOf(name);
    if (index < 0) return undefined;
    const found = argv[index + 1];
    if (found === undefined || found.startsWith('--')) throw new Error(`${name} needs a value`);
    return found;
  };
  const integer = (name: string, fallback: number) => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    const parsed = Number(raw.replace(/_/g, ''));
    if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`${name} must be a positive integer (got "${raw}")`);
    return parsed;
  };
  const known = new Set(['--rows', '--users', '--smoke', '--databases', '--iterations', '--postgres-url', '--output']);
  for (const argument of argv)
    if (argument.startsWith('--') && !known.has(argument))
      throw new Error(`unknown option ${argument} (known: ${[...known].join(', ')})`);
  const smoke = argv.includes('--smoke');
  const databases = (value('--databases') ?? 'sqlite,postgres').split(',').map((name) => name.trim());
  for (const database of databases)
    if (database !== 'sqlite' && database !== 'postgres')
      throw new Error(`--databases: unknown database "${database}"`);
  return {
    rows: integer('--rows', smoke ? 20_000 : 1_000_000),
    users: integer('--users', smoke ? 100 : 1000),
    databases: databases as Dialect[],
    iterations: integer('--iterations', smoke ? 5 : 200),
    warmup: smoke ? 1 : 10,
    postgresUrl: value('--postgres-url') ?? process.env.BENCH_POSTGRES_URL ?? DEFAULT_POSTGRES_URL,
    output: resolve(value('--output') ?? join(PROJECT_ROOT, 'bench', 'results', 'activity-latest.json')),
  };
}

async function timed(iterations: number, warmup: number, run: (index: number) => Promise<unknown>) {
  for (let index = 0; index < warmup; index++) await run(index);
  const samples: number[] = [];
  for (let index = 0; index < iterations; index++) {
    const started = performance.now();
    await run(index);
    samples.push(performance.now() - started);
  }
  return summarize(samples);
}

/** The cursor `depth` rows into a user's list (found once, outside the timing). */
async function cursorAt(store: Store, userId: string, depth: number): Promise<ActivityCursor | undefined> {
  const row = await store.db
    .selectFrom('usage_events')
    .select(['created_at', 'id'])
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(depth)
    .limit(1)
    .executeTakeFirst();
  return row ? { createdAt: Number(row.created_at), id: row.id } : undefined;
}

async function benchDatabase(database: Dialect, options: ActivityBenchOptions, log: (line: string) => void) {
  const bench = await openBenchStore(database, options.postgresUrl);
  try {
    const { store } = bench;
    log(`${database}: seeding ${options.rows.toLocaleString('en-US')} requests into ${bench.description} …`);
    const started = performance.now();
    await seedActivity(
      store,
      { rows: options.rows, users: options.users, now: Date.now(), spanMs: 30 * DAY_MS },
      (done) => log(`${database}:   ${done.toLocaleString('en-US')} rows`),
    );
    const seedSeconds = Math.round((performance.now() - started) / 100) / 10;
    const count = async (userId?: string) => {
      let query = store.db.selectFrom('usage_events').select(sql<string | number>`count(*)`.as('count'));
      if (userId) query = query.where('user_id', '=', userId);
      return Number((await query.executeTakeFirstOrThrow()).count);
    };
    const rows = await count();
    const heavyRows = await count(HEAVY_USER);
    log(`${database}: seeded in ${seedSeconds} s; ${rows} rows, ${heavyRows} of them the busiest account's`);
    const deep = await cursorAt(store, HEAVY_USER, Math.min(DEEP_ROWS, Math.max(0, heavyRows - PAGE - 1)));
    const page = (filter: ActivityFilter, cursor?: ActivityCursor) => async () =>
      (await listActivity(store.db, HEAVY_USER, filter, { limit: PAGE, cursor })).rows.length;
    const queries: Array<[string, (index: number) => Promise<number>]> = [
      ['first page', page({})],
      [`filtered page: key ${HEAVY_KEY}`, page({ keyId: HEAVY_KEY })],
      ['filtered page: status=error', page({ status: 'error' })],
      ['filtered page: status=upstream_error', page({ status: 'upstream_error' })],
      [`deep page: cursor ${DEEP_ROWS.toLocaleString('en-US')} rows in`, page({}, deep)],
      // Every tenth request is the busiest account's: req_0, req_10, … exist; vary the id.
      [
        'lookup by request id',
        async (index) =>
          (await findActivity(store.db, HEAVY_USER, `req_${((index * 7919) % (rows / 10)) * 10}`)) ? 1 : 0,
      ],
    ];
    const results: ActivityResult[] = [];
    for (const [query, run] of queries) {
      const returned = await run(0);
      const figures = await timed(options.iterations, options.warmup, run);
      results.push({ database, query, returned, ...figures, meetsTarget: figures.p99 <= TARGET_P99_MS });
      log(`${database}: ${query}: p50 ${figures.p50.toFixed(2)} ms, p99 ${figures.p99.toFixed(2)} ms`);
    }
    return { summary: { database, description: bench.description, seedSeconds, rows, heavyRows }, results };
  } finally {
    await bench.cleanup();
  }
}

export function formatTable(report: ActivityBenchReport): string {
  const lines = [
    '| database | query | rows | p50 ms | p99 ms | max ms | p99 ≤ 50 ms |',
    '| --- | --- | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const result of report.results)
    lines.push(
      `| ${result.database} | ${result.query} | ${result.returned} | ${result.p50.toFixed(2)} | ${result.p99.toFixed(2)} | ${result.max.toFixed(2)} | ${result.meetsTarget ? 'yes' : 'no'} |`,
    );
  return lines.join('\n');
}

export async function main(argv: string[], log: (line: string) => void = console.log): Promise<ActivityBenchReport> {
  const options = parseArguments(argv);
  const report: ActivityBenchReport = {
    generatedAt: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      loadAverage: loadavg(),
      node: process.version,
    },
    options: {
      rows: options.rows,
      users: options.users,
      databases: options.databases,
      iterations: options.iterations,
      warmup: options.warmup,
    },
    targetP99Ms: TARGET_P99_MS,
    databases: [],
    results: [],
  };
  for (const database of options.databases) {
    const { summary, results } = await benchDatabase(database, options, log);
    report.databases.push(summary);
    report.results.push(...results);
  }
  mkdirSync(dirname(options.output), { recursive: true });
  writeFileSync(options.output, `${JSON.stringify(report, null, 2)}\n`);
  log(formatTable(report));
  log(`written to ${options.output}`);
  return report;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}

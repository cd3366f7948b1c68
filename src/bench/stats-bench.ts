/**
 * Statistics benchmark (issue 9 item 6): seeds N usage events into the rollups (default 10
 * million), starts the gateway on that store and measures p50/p99 latency of every rankings
 * endpoint and every provider statistics window over HTTP, on SQLite and on PostgreSQL, with the
 * 5 s answer memo off (every call computes) and on (after warm-up). Target: p99 ≤ 50 ms.
 *
 *   node dist/bench/stats-bench.js [--events N] [--smoke] [--databases sqlite,postgres]
 *     [--iterations N] [--postgres-url URL] [--output FILE | --out FILE]
 *
 * Writes bench/results/stats-latest.json. See docs/benchmarks-stats.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Dialect } from '../store/database.js';
import { seedUsageStats } from '../statistics/seed-usage-stats.js';
import { sampleLatency, type LatencyFigures } from './latency-sampler.js';
import {
  BENCH_PROVIDERS,
  DEFAULT_POSTGRES_URL,
  analyzeAfterLoad,
  benchModels,
  countRollupRows,
  openBenchStore,
  startBenchGateway,
} from './stats-bench-setup.js';

export const TARGET_P99_MS = 50;
const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DAY_MS = 86_400_000;

export interface StatsBenchOptions {
  events: number;
  databases: Dialect[];
  iterations: number;
  warmup: number;
  postgresUrl: string;
  output: string;
  models: number;
  users: number;
  /** Seeded traffic covers this many days back: the month window and the month before it (for `change`). */
  days: number;
}

export interface EndpointResult extends LatencyFigures {
  database: Dialect;
  /** computed: memo off, every call runs its queries; memoised: the default 5 s memo, warmed up. */
  mode: 'computed' | 'memoised';
  endpoint: string;
  meetsTarget: boolean;
}

export interface StatsBenchReport {
  generatedAt: string;
  machine: { cpus: number; cpuModel: string; loadAverage: number[]; node: string };
  options: Omit<StatsBenchOptions, 'output' | 'postgresUrl'>;
  targetP99Ms: number;
  databases: { database: Dialect; description: string; seedSeconds: number; rows: Record<string, number> }[];
  results: EndpointResult[];
}

/** Every rankings endpoint (each window and metric) and every provider statistics window. */
export function benchEndpoints(provider: string): string[] {
  return [
    ...['day', 'week', 'month'].map((window) => `/rankings/models?window=${window}`),
    ...['tokens', 'requests', 'users'].flatMap((metric) =>
      ['week', 'month'].map((window) => `/rankings/charts?metric=${metric}&window=${window}`),
    ),
    ...['day', 'week', 'month'].map((window) => `/rankings/speed?window=${window}`),
    '/rankings/benchmarks',
    ...['day', 'week', 'month'].map((window) => `/api-account/rankings/all?window=${window}`),
    ...['1h', '24h', '7d'].map((window) => `/api-account/providers/${provider}/stats?window=${window}`),
  ];
}

export function parseArguments(argv: string[]): StatsBenchOptions {
  const value = (name: string) => {
    // --out is accepted too, as `npm run bench` spells it.
    const index = name === '--output' && !argv.includes(name) ? argv.indexOf('--out') : argv.indexOf(name);
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
  const known = new Set(['--events', '--smoke', '--databases', '--iterations', '--postgres-url', '--output', '--out']);
  for (const argument of argv)
    if (argument.startsWith('--') && !known.has(argument))
      throw new Error(`unknown option ${argument} (known: ${[...known].join(', ')})`);
  const smoke = argv.includes('--smoke');
  const databases = (value('--databases') ?? 'sqlite,postgres').split(',').map((name) => name.trim());
  for (const database of databases)
    if (database !== 'sqlite' && database !== 'postgres')
      throw new Error(`--databases: unknown database "${database}"`);
  return {
    events: integer('--events', smoke ? 20_000 : 10_000_000),
    databases: databases as Dialect[],
    iterations: integer('--iterations', smoke ? 5 : 200),
    warmup: smoke ? 1 : 10,
    postgresUrl: value('--postgres-url') ?? process.env.BENCH_POSTGRES_URL ?? DEFAULT_POSTGRES_URL,
    output: resolve(value('--output') ?? join(PROJECT_ROOT, 'bench', 'results', 'stats-latest.json')),
    models: 60,
    users: 1000,
    days: 60,
  };
}

async function benchDatabase(database: Dialect, options: StatsBenchOptions, log: (line: string) => void) {
  const bench = await openBenchStore(database, options.postgresUrl);
  try {
    log(`${database}: seeding ${options.events.toLocaleString('en-US')} events into ${bench.description} …`);
    const started = performance.now();
    await seedUsageStats(bench.store, {
      events: options.events,
      now: Date.now(),
      spanMs: options.days * DAY_MS,
      models: benchModels(options.models),
      providers: BENCH_PROVIDERS,
      users: options.users,
      seed: 42,
    });
    await analyzeAfterLoad(bench.store);
    const seedSeconds = Math.round((performance.now() - started) / 100) / 10;
    const rows = await countRollupRows(bench.store);
    log(`${database}: seeded in ${seedSeconds} s; rows ${JSON.stringify(rows)}`);
    const results: EndpointResult[] = [];
    for (const [mode, cacheMs] of [
      ['computed', 0],
      ['memoised', undefined],
    ] as const) {
      const { gateway, url } = await startBenchGateway(bench.store, cacheMs);
      try {
        // The busiest provider: the seeding gives the first provider the most popular model.
        for (const endpoint of benchEndpoints(BENCH_PROVIDERS[0])) {
          const figures = await sampleLatency(`${url}${endpoint}`, {
            warmup: options.warmup,
            iterations: options.iterations,
          });
          results.push({ database, mode, endpoint, ...figures, meetsTarget: figures.p99 <= TARGET_P99_MS });
          log(
            `${database} ${mode.padEnd(8)} ${endpoint.padEnd(52)} p50 ${figures.p50.toFixed(1).padStart(7)} ms  p99 ${figures.p99.toFixed(1).padStart(7)} ms`,
          );
        }
      } finally {
        await gateway.close();
      }
    }
    return { summary: { database, description: bench.description, seedSeconds, rows }, results };
  } finally {
    await bench.cleanup();
  }
}

export function formatTable(report: StatsBenchReport): string {
  const lines = [
    `Statistics latency, ${report.options.events.toLocaleString('en-US')} seeded events, target p99 ≤ ${report.targetP99Ms} ms (${report.machine.cpus} CPUs, load ${report.machine.loadAverage.map((value) => value.toFixed(1)).join(' ')})`,
  ];
  const header = ['database', 'mode', 'endpoint', 'p50 ms', 'p99 ms', 'target'];
  const rows = report.results.map((result) => [
    result.database,
    result.mode,
    result.endpoint,
    result.p50.toFixed(1),
    result.p99.toFixed(1),
    result.meetsTarget ? 'ok' : 'MISSED',
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const format = (row: string[]) =>
    row
      .map((cell, column) => (column >= 3 && column <= 4 ? cell.padStart(widths[column]) : cell.padEnd(widths[column])))
      .join('  ');
  lines.push(format(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(format));
  const missed = report.results.filter((result) => !result.meetsTarget).length;
  lines.push(
    missed === 0
      ? `All ${report.results.length} figures meet the target.`
      : `${missed} of ${report.results.length} figures miss the target.`,
  );
  return lines.join('\n');
}

export async function runStatsBench(
  options: StatsBenchOptions,
  log: (line: string) => void = () => {},
): Promise<StatsBenchReport> {
  const report: StatsBenchReport = {
    generatedAt: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      loadAverage: loadavg(),
      node: process.version,
    },
    options: {
      events: options.events,
      databases: options.databases,
      iterations: options.iterations,
      warmup: options.warmup,
      models: options.models,
      users: options.users,
      days: options.days,
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
  return report;
}

export async function main(argv: string[]): Promise<StatsBenchReport> {
  const options = parseArguments(argv);
  const report = await runStatsBench(options, (line) => console.error(line));
  console.log(formatTable(report));
  console.log(`Written to ${options.output}`);
  return report;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}

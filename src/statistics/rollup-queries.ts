import { sql } from 'kysely';
import type { Store } from '../store/database.js';
import { HISTOGRAM_SIZE, LATENCY_COLUMNS, TTFT_COLUMNS, histogramPercentile } from './latency-histogram.js';
import { GRANULARITY_MS, ROLLUP_TABLES, SUM_COLUMNS, type Granularity, type SumColumn } from './rollup-schema.js';

export interface RollupTotals {
  sums: Record<SumColumn, number>;
  latency: number[];
  ttft: number[];
}

export interface GroupedTotals {
  bucketStart?: number;
  modelId?: string;
  providerId?: string;
  totals: RollupTotals;
}

export type GroupColumn = 'bucket_start' | 'model_id' | 'provider_id';

/** Every counter column of a rollup row: the sums, then the two histograms. */
export const COUNTER_COLUMNS: readonly string[] = [...SUM_COLUMNS, ...LATENCY_COLUMNS, ...TTFT_COLUMNS];
/**
 * What volume rankings read (leaderboard, charts, provider share, popularity). Summing only these
 * instead of all 50 counters is what keeps a month of per-day, per-model rows cheap to fetch.
 */
export const VOLUME_COLUMNS: readonly SumColumn[] = ['requests', 'prompt_tokens', 'completion_tokens'];

export interface RollupFilter {
  /** Bucket starts in [from, to). */
  from: number;
  to: number;
  providerId?: string;
  modelId?: string;
}

export function emptyTotals(): RollupTotals {
  // A literal (one fast object shape), not Object.fromEntries: this runs once per row read.
  const sums: Record<SumColumn, number> = {
    requests: 0,
    successes: 0,
    upstream_failures: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    latency_ms_sum: 0,
    generation_ms_sum: 0,
    generation_tokens: 0,
  };
  return { sums, latency: new Array(HISTOGRAM_SIZE).fill(0), ttft: new Array(HISTOGRAM_SIZE).fill(0) };
}

export function addTotals(target: RollupTotals, source: RollupTotals): RollupTotals {
  for (const column of SUM_COLUMNS) target.sums[column] += source.sums[column];
  for (let index = 0; index < HISTOGRAM_SIZE; index++) {
    target.latency[index] += source.latency[index];
    target.ttft[index] += source.ttft[index];
  }
  return target;
}

/**
 * Sums rollup rows in SQL (one statement, an index range scan), grouped as asked. `columns` limits
 * the sums to those counters (the others read as 0): fetching 50 sums per row is most of the cost.
 */
export async function sumRollups(
  store: Store,
  granularity: Granularity,
  filter: RollupFilter,
  groupBy: GroupColumn[],
  columns: readonly string[] = COUNTER_COLUMNS,
): Promise<GroupedTotals[]> {
  const table = ROLLUP_TABLES[granularity];
  const counters = columns.length > 0 ? columns : ['requests'];
  let query = store.db
    .selectFrom(table)
    .select(counters.map((column) => sql<string | number>`sum(${sql.ref(column)})`.as(column)))
    .select(groupBy)
    .where('bucket_start', '>=', filter.from)
    .where('bucket_start', '<', filter.to);
  if (filter.providerId !== undefined) query = query.where('provider_id', '=', filter.providerId);
  if (filter.modelId !== undefined) query = query.where('model_id', '=', filter.modelId);
  if (groupBy.length > 0) query = query.groupBy(groupBy);
  const rows = (await query.execute()) as Record<string, string | number | null>[];
  // An empty range still answers one ungrouped row of nulls.
  const first = counters[0];
  // Which counters came back, worked out once: a month of per-day rows is thousands of rows.
  const sums = SUM_COLUMNS.filter((column) => counters.includes(column));
  const latency = LATENCY_COLUMNS.flatMap((column, index) => (counters.includes(column) ? [index] : []));
  const ttft = TTFT_COLUMNS.flatMap((column, index) => (counters.includes(column) ? [index] : []));
  return rows
    .filter((row) => row[first] !== null)
    .map((row) => {
      // PostgreSQL sums BIGINT into NUMERIC, which pg hands back as a string.
      const totals = emptyTotals();
      for (const column of sums) totals.sums[column] = Number(row[column] ?? 0);
      for (const index of latency) totals.latency[index] = Number(row[LATENCY_COLUMNS[index]] ?? 0);
      for (const index of ttft) totals.ttft[index] = Number(row[TTFT_COLUMNS[index]] ?? 0);
      return {
        bucketStart: row.bucket_start === undefined ? undefined : Number(row.bucket_start),
        modelId: row.model_id === undefined ? undefined : String(row.model_id),
        providerId: row.provider_id === undefined ? undefined : String(row.provider_id),
        totals,
      };
    });
}

export interface WindowRange {
  granularity: Granularity;
  bucketMs: number;
  from: number;
  to: number;
  bucketStarts: number[];
}

/** The last `count` whole buckets, the current (partial) one included. */
export function windowRange(now: number, granularity: Granularity, count: number, bucketsBack = 0): WindowRange {
  const bucketMs = GRANULARITY_MS[granularity];
  const current = now - (now % bucketMs) - bucketsBack * bucketMs;
  const from = current - (count - 1) * bucketMs;
  return {
    granularity,
    bucketMs,
    from,
    to: current + bucketMs,
    bucketStarts: Array.from({ length: count }, (_, index) => from + index * bucketMs),
  };
}

const ratio = (part: number, whole: number, digits = 4) =>
  whole === 0 ? null : Number((part / whole).toFixed(digits));

/** Totals → the public statistics shape. */
export function describeTotals(totals: RollupTotals) {
  const sums = totals.sums;
  return {
    requests: sums.requests,
    successes: sums.successes,
    success_rate: ratio(sums.successes, sums.requests),
    uptime: sums.requests === 0 ? null : ratio(sums.requests - sums.upstream_failures, sums.requests),
    prompt_tokens: sums.prompt_tokens,
    completion_tokens: sums.completion_tokens,
    total_tokens: sums.prompt_tokens + sums.completion_tokens,
    latency_ms: { p50: histogramPercentile(totals.latency, 0.5), p95: histogramPercentile(totals.latency, 0.95) },
    ttft_ms: { p50: histogramPercentile(totals.ttft, 0.5), p95: histogramPercentile(totals.ttft, 0.95) },
    tokens_per_second:
      sums.generation_ms_sum === 0
        ? null
        : Number(((sums.generation_tokens * 1000) / sums.generation_ms_sum).toFixed(1)),
  };
}

export type DescribedTotals = ReturnType<typeof describeTotals>;

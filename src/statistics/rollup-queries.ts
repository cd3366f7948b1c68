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

export interface RollupFilter {
  /** Bucket starts in [from, to). */
  from: number;
  to: number;
  providerId?: string;
  modelId?: string;
}

export function emptyTotals(): RollupTotals {
  return { sums: Object.fromEntries(SUM_COLUMNS.map((column) => [column, 0])) as Record<SumColumn, number>, latency: new Array(HISTOGRAM_SIZE).fill(0), ttft: new Array(HISTOGRAM_SIZE).fill(0) };
}

export function addTotals(target: RollupTotals, source: RollupTotals): RollupTotals {
  for (const column of SUM_COLUMNS) target.sums[column] += source.sums[column];
  for (let index = 0; index < HISTOGRAM_SIZE; index++) {
    target.latency[index] += source.latency[index];
    target.ttft[index] += source.ttft[index];
  }
  return target;
}

/** Sums rollup rows in SQL (one statement, an index range scan), grouped as asked. */
export async function sumRollups(store: Store, granularity: Granularity, filter: RollupFilter, groupBy: GroupColumn[]): Promise<GroupedTotals[]> {
  const table = ROLLUP_TABLES[granularity];
  const counters = [...SUM_COLUMNS, ...LATENCY_COLUMNS, ...TTFT_COLUMNS];
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
  return rows
    .filter((row) => row.requests !== null)
    .map((row) => {
      // PostgreSQL sums BIGINT into NUMERIC, which pg hands back as a string.
      const totals = emptyTotals();
      for (const column of SUM_COLUMNS) totals.sums[column] = Number(row[column] ?? 0);
      LATENCY_COLUMNS.forEach((column, index) => (totals.latency[index] = Number(row[column] ?? 0)));
      TTFT_COLUMNS.forEach((column, index) => (totals.ttft[index] = Number(row[column] ?? 0)));
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
  return { granularity, bucketMs, from, to: current + bucketMs, bucketStarts: Array.from({ length: count }, (_, index) => from + index * bucketMs) };
}

const ratio = (part: number, whole: number, digits = 4) => (whole === 0 ? null : Number((part / whole).toFixed(digits)));

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
    tokens_per_second: sums.generation_ms_sum === 0 ? null : Number(((sums.generation_tokens * 1000) / sums.generation_ms_sum).toFixed(1)),
  };
}

export type DescribedTotals = ReturnType<typeof describeTotals>;

/**
 * Fixed latency buckets, so percentiles can be read from summed rollups instead of raw events.
 * Each value is the bucket's upper bound in milliseconds; a percentile is reported as the upper
 * bound of the bucket holding it (the last bucket, open-ended, reports its lower bound).
 */
export const LATENCY_BUCKET_BOUNDS_MS = [
  25,
  50,
  100,
  150,
  200,
  300,
  400,
  500,
  750,
  1000,
  1500,
  2000,
  3000,
  5000,
  7500,
  10000,
  15000,
  20000,
  30000,
  60000,
  Infinity,
] as const;

export const HISTOGRAM_SIZE = LATENCY_BUCKET_BOUNDS_MS.length;

export function latencyBucketIndex(milliseconds: number): number {
  for (let index = 0; index < HISTOGRAM_SIZE; index++)
    if (milliseconds <= LATENCY_BUCKET_BOUNDS_MS[index]) return index;
  return HISTOGRAM_SIZE - 1;
}

/** Column names of the histogram counters in the rollup tables: lh_00…lh_20 (latency), th_00…th_20 (time to first token). */
export const LATENCY_COLUMNS = Array.from(
  { length: HISTOGRAM_SIZE },
  (_, index) => `lh_${String(index).padStart(2, '0')}`,
);
export const TTFT_COLUMNS = Array.from(
  { length: HISTOGRAM_SIZE },
  (_, index) => `th_${String(index).padStart(2, '0')}`,
);

/** The p-th percentile (0 < p ≤ 1) of a bucket histogram, or null when it is empty. */
export function histogramPercentile(counts: readonly number[], p: number): number | null {
  const total = counts.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(p * total));
  let cumulative = 0;
  for (let index = 0; index < counts.length; index++) {
    cumulative += counts[index];
    if (cumulative >= rank) {
      const bound = LATENCY_BUCKET_BOUNDS_MS[index];
      return Number.isFinite(bound) ? bound : LATENCY_BUCKET_BOUNDS_MS[index - 1];
    }
  }
  return null;
}

/** What a raw recount would report: the bucket bound of the true p-th value (for tests and audits). */
export function rawPercentileBucket(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const value = sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1];
  const bound = LATENCY_BUCKET_BOUNDS_MS[latencyBucketIndex(value)];
  return Number.isFinite(bound) ? bound : LATENCY_BUCKET_BOUNDS_MS[HISTOGRAM_SIZE - 2];
}

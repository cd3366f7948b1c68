/**
 * Fixed latency buckets, so percentiles can be read from summed rollups instead of raw events.
 * Each value is the bucket's upper bound in milliseconds. A percentile is interpolated linearly
 * inside the bucket holding it (values spread evenly between its bounds), not read as the bucket's
 * edge: requests of 17–20 ms used to read "25 ms" for p50 and p95 alike. The last bucket, open-ended,
 * reports its lower bound.
 */
const LATENCY_BUCKET_BOUNDS_MS = [
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
  const rank = p * total;
  let before = 0;
  for (let index = 0; index < counts.length; index++) {
    const count = counts[index];
    if (count > 0 && before + count >= rank) {
      const upper = LATENCY_BUCKET_BOUNDS_MS[index];
      const lower = index === 0 ? 0 : LATENCY_BUCKET_BOUNDS_MS[index - 1];
      if (!Number.isFinite(upper)) return lower;
      // How far into the bucket's values the rank falls, as a share of the bucket's width.
      const position = Math.min(1, Math.max(0, (rank - before) / count));
      return Math.round((lower + (upper - lower) * position) * 10) / 10;
    }
    before += count;
  }
  return null;
}

/** What a raw recount would report: the same estimate from the raw values' histogram (for tests and audits). */
export function rawPercentileBucket(values: number[], p: number): number | null {
  const counts = new Array<number>(HISTOGRAM_SIZE).fill(0);
  for (const value of values) counts[latencyBucketIndex(value)] += 1;
  return histogramPercentile(counts, p);
}

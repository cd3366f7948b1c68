import { HISTOGRAM_SIZE, LATENCY_COLUMNS, TTFT_COLUMNS, latencyBucketIndex } from './latency-histogram.js';
import { GRANULARITY_MS, type Granularity, type SumColumn } from './rollup-schema.js';
import { isSuccess, isUpstreamFailure, type UsageStatsEvent } from './usage-stats-event.js';

export interface RollupDelta {
  bucketStart: number;
  modelId: string;
  providerId: string;
  sums: Record<SumColumn, number>;
  latency: number[];
  ttft: number[];
}

// A literal, not Object.fromEntries: V8 then gives every sums object one fast shape (this runs per new row).
const emptySums = (): Record<SumColumn, number> => ({
  requests: 0,
  successes: 0,
  upstream_failures: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  latency_ms_sum: 0,
  generation_ms_sum: 0,
  generation_tokens: 0,
});
const GRANULARITIES = Object.keys(GRANULARITY_MS) as Granularity[];

export interface RollupAccumulatorOptions {
  /** Per granularity, buckets starting before this time are not kept (a bulk load skips rows retention would prune at once). */
  keepFrom?: Partial<Record<Granularity, number>>;
}

/**
 * Pure, in-memory folding of events into rollup deltas (one per bucket, model and provider, at
 * each granularity) and distinct (day, model, user) triples. Many events become few rows, which
 * is what makes the writes cheap: a flush upserts the deltas, it never rewrites raw events.
 */
export class RollupAccumulator {
  readonly deltas: Record<Granularity, Map<string, RollupDelta>> = {
    minute: new Map(),
    hour: new Map(),
    day: new Map(),
  };
  readonly modelUsersByDay = new Map<string, { dayStart: number; modelId: string; userId: string }>();
  eventCount = 0;
  private readonly keepFrom: Record<Granularity, number>;

  constructor(options: RollupAccumulatorOptions = {}) {
    this.keepFrom = { minute: -Infinity, hour: -Infinity, day: -Infinity, ...options.keepFrom };
  }

  add(event: UsageStatsEvent): void {
    this.eventCount++;
    const success = isSuccess(event);
    const ttft = event.ttftMs ?? event.latencyMs;
    const generationMs = Math.max(0, event.latencyMs - ttft);
    const countsForThroughput = success && event.completionTokens > 0 && generationMs > 0;
    const latencyIndex = latencyBucketIndex(event.latencyMs);
    const ttftIndex = latencyBucketIndex(ttft);
    for (const granularity of GRANULARITIES) {
      const size = GRANULARITY_MS[granularity];
      const bucketStart = event.timestamp - (event.timestamp % size);
      if (bucketStart < this.keepFrom[granularity]) continue;
      const key = `${bucketStart}\u0000${event.modelId}\u0000${event.providerId}`;
      let delta = this.deltas[granularity].get(key);
      if (!delta) {
        delta = {
          bucketStart,
          modelId: event.modelId,
          providerId: event.providerId,
          sums: emptySums(),
          latency: new Array(HISTOGRAM_SIZE).fill(0),
          ttft: new Array(HISTOGRAM_SIZE).fill(0),
        };
        this.deltas[granularity].set(key, delta);
      }
      const sums = delta.sums;
      sums.requests++;
      if (success) sums.successes++;
      if (isUpstreamFailure(event)) sums.upstream_failures++;
      sums.prompt_tokens += event.promptTokens;
      sums.completion_tokens += event.completionTokens;
      // Latency and time-to-first-token percentiles describe answered requests only.
      if (success) {
        sums.latency_ms_sum += event.latencyMs;
        delta.latency[latencyIndex]++;
        delta.ttft[ttftIndex]++;
      }
      if (countsForThroughput) {
        sums.generation_ms_sum += generationMs;
        sums.generation_tokens += event.completionTokens;
      }
    }
    if (event.userId && success) {
      const dayStart = event.timestamp - (event.timestamp % GRANULARITY_MS.day);
      this.modelUsersByDay.set(`${dayStart}\u0000${event.modelId}\u0000${event.userId}`, {
        dayStart,
        modelId: event.modelId,
        userId: event.userId,
      });
    }
  }

  get isEmpty(): boolean {
    return this.eventCount === 0;
  }
}

/** A delta as a table row (histogram arrays spread into their columns). */
export function deltaToRow(delta: RollupDelta): Record<string, number | string> {
  const row: Record<string, number | string> = {
    bucket_start: delta.bucketStart,
    model_id: delta.modelId,
    provider_id: delta.providerId,
    ...delta.sums,
  };
  LATENCY_COLUMNS.forEach((column, index) => (row[column] = delta.latency[index]));
  TTFT_COLUMNS.forEach((column, index) => (row[column] = delta.ttft[index]));
  return row;
}

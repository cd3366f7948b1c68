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
  /**
   * The rows the last event went to, per granularity, with what they were found by: events come
   * one per request, nearly all to the rows the one before went to, so the three keys are not
   * rebuilt and looked up again for each (this runs on every answer).
   */
  private readonly lastRows: Record<Granularity, RollupDelta | undefined> = {
    minute: undefined,
    hour: undefined,
    day: undefined,
  };
  private lastModelUser: { dayStart: number; modelId: string; userId: string } | undefined;

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
      let delta = this.lastRows[granularity];
      if (
        delta === undefined ||
        delta.bucketStart !== bucketStart ||
        delta.modelId !== event.modelId ||
        delta.providerId !== event.providerId
      )
        delta = this.row(granularity, bucketStart, event);
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
      const last = this.lastModelUser;
      if (last?.dayStart === dayStart && last.modelId === event.modelId && last.userId === event.userId) return;
      const triple = { dayStart, modelId: event.modelId, userId: event.userId };
      this.modelUsersByDay.set(`${dayStart}\u0000${event.modelId}\u0000${event.userId}`, triple);
      this.lastModelUser = triple;
    }
  }

  /** The row of this bucket, model and provider at one granularity (made when it is the first). */
  private row(granularity: Granularity, bucketStart: number, event: UsageStatsEvent): RollupDelta {
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
    this.lastRows[granularity] = delta;
    return delta;
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

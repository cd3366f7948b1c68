import type { Store } from '../store/database.js';
import { RollupAccumulator } from './rollup-accumulator.js';
import { RETENTION_MS, writeRollups } from './usage-rollup-writer.js';
import type { Granularity } from './rollup-schema.js';
import type { UsageStatsEvent } from './usage-stats-event.js';

export interface SeedOptions {
  events: number;
  /** Events are spread evenly over [now - spanMs, now). */
  now: number;
  spanMs: number;
  models: string[];
  providers: string[];
  users?: number;
  /** PRNG seed: the same options give the same events. */
  seed?: number;
  /** Events folded in memory before each write. */
  batchSize?: number;
}

/** A small deterministic PRNG (mulberry32), so seeded statistics are reproducible. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** Deterministic synthetic events (for benchmarks and tests): skewed model popularity, some failures. */
export function* syntheticEvents(options: SeedOptions): Generator<UsageStatsEvent> {
  const next = random(options.seed ?? 1);
  const users = options.users ?? 1000;
  const step = options.spanMs / options.events;
  for (let index = 0; index < options.events; index++) {
    // Squaring skews traffic toward the first models, as real usage is.
    const modelIndex = Math.floor(next() ** 2 * options.models.length);
    const failure = next() < 0.02;
    const ttft = 100 + Math.floor(next() * 900);
    yield {
      timestamp: Math.floor(options.now - options.spanMs + index * step),
      modelId: options.models[modelIndex],
      providerId: options.providers[modelIndex % options.providers.length],
      userId: `user-${Math.floor(next() * users)}`,
      promptTokens: failure ? 0 : 50 + Math.floor(next() * 2000),
      completionTokens: failure ? 0 : 10 + Math.floor(next() * 800),
      latencyMs: ttft + Math.floor(next() * 5000),
      ttftMs: ttft,
      status: failure ? 502 : 200,
    };
  }
}

/**
 * Seeds the rollups with `options.events` synthetic events, in batches (10 million take minutes,
 * not hours), through the recorder's own path: RollupAccumulator, then writeRollups' additive
 * upserts. Rows the recorder's pruning would delete at `now` (minute rows older than two days)
 * are not folded at all instead of written and deleted: the tables end up the same.
 */
export async function seedUsageStats(store: Store, options: SeedOptions): Promise<void> {
  const batchSize = options.batchSize ?? 1_000_000;
  const keepFrom: Partial<Record<Granularity, number>> = {};
  for (const granularity of Object.keys(RETENTION_MS) as Granularity[]) {
    const retention = RETENTION_MS[granularity];
    if (retention !== null) keepFrom[granularity] = options.now - retention;
  }
  let accumulator = new RollupAccumulator({ keepFrom });
  for (const event of syntheticEvents(options)) {
    accumulator.add(event);
    if (accumulator.eventCount >= batchSize) {
      await writeRollups(store, accumulator);
      accumulator = new RollupAccumulator({ keepFrom });
    }
  }
  await writeRollups(store, accumulator);
}

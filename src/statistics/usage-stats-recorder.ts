import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import type { Clock } from '../shared/clock.js';
import type { CompletionObserver } from '../routing/completion-outcome.js';
import { RollupAccumulator } from './rollup-accumulator.js';
import { pruneRollups, writeRollups } from './usage-rollup-writer.js';
import { usageStatsEventsFromOutcome, type UsageStatsEvent } from './usage-stats-event.js';

export interface UsageStatsRecorderOptions {
  /** Pending events are written at least this often. */
  flushIntervalMs?: number;
  /** …and as soon as this many are pending. */
  maxPendingEvents?: number;
}

/**
 * Folds usage events into rollups incrementally: events accumulate in memory and are written
 * as a few upserts per flush (batched writes); reads never touch raw events.
 */
export class UsageStatsRecorder implements CompletionObserver {
  private pending = new RollupAccumulator();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private lastPruneAt = 0;
  private readonly flushIntervalMs: number;
  private readonly maxPendingEvents: number;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: UsageStatsRecorderOptions = {},
  ) {
    this.flushIntervalMs = options.flushIntervalMs ?? 1000;
    this.maxPendingEvents = options.maxPendingEvents ?? 5000;
  }

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.flushIntervalMs);
    this.timer.unref();
  }

  /** The input interface: any producer of usage events (gateway observer, metering replay, seeding). */
  recordUsageForStats(event: UsageStatsEvent): void {
    this.pending.add(event);
    if (this.pending.eventCount >= this.maxPendingEvents) void this.flush();
  }

  onCompletion(outcome: Parameters<CompletionObserver['onCompletion']>[0]): void {
    for (const event of usageStatsEventsFromOutcome(outcome)) this.recordUsageForStats(event);
  }

  /** Writes what is pending; flushes run one after another so rows are never double-added. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.pending.isEmpty) return;
      const batch = this.pending;
      this.pending = new RollupAccumulator();
      try {
        await writeRollups(this.store, batch);
        const now = this.clock.now();
        if (now - this.lastPruneAt > 3_600_000) {
          this.lastPruneAt = now;
          await pruneRollups(this.store, now);
        }
      } catch (error) {
        this.logger.error(
          { err: error, events: batch.eventCount },
          'usage statistics flush failed; these events are missing from the statistics',
        );
      }
    });
    return this.flushing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}

/** Builds rollups straight from a list of events (replay from stored usage events, tests). */
export async function rollupFromEvents(store: Store, events: Iterable<UsageStatsEvent>): Promise<void> {
  const accumulator = new RollupAccumulator();
  for (const event of events) accumulator.add(event);
  await writeRollups(store, accumulator);
}

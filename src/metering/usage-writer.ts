import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import type { SettlementRecord } from './settlement-record.js';
import { writeSettlements } from './write-settlements.js';

export interface UsageWriterOptions {
  /** Told about records once they are durable (committed). */
  onWritten?: (records: SettlementRecord[]) => void;
  /**
   * How long settled records wait before they are written. 0 (the default): written on the next
   * turn of the event loop, every record settled in one turn in one transaction, so a hard kill
   * loses at most the records of the turn it interrupts.
   */
  flushIntervalMs?: number;
  maxBatch?: number;
}

/** Told when a store write of some records starts and ends (the memory hot counters' pending figures). */
export interface WriteObserver {
  beginWrite(records: SettlementRecord[]): void;
  endWrite(records: SettlementRecord[], committed: boolean): void;
}

/**
 * The durable record of settlements when there is no Redis stream: records are queued in memory
 * and written in batches, one transaction each (usage events, ledger charges, key spend). No
 * request waits for the store. stop() writes everything left.
 */
export class UsageWriter {
  private queue: SettlementRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private scheduled: NodeJS.Immediate | undefined;
  private flushing: Promise<void> | undefined;
  private readonly flushIntervalMs: number;
  private readonly maxBatch: number;
  private readonly onWritten: ((records: SettlementRecord[]) => void) | undefined;
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly clock: { now(): number },
    private readonly observer: WriteObserver | null,
    options: UsageWriterOptions = {},
  ) {
    this.flushIntervalMs = options.flushIntervalMs ?? 0;
    this.maxBatch = options.maxBatch ?? 500;
    this.onWritten = options.onWritten;
  }

  start(): void {
    // A retry timer: the per-turn flush covers normal work; this one retries after a failure.
    this.timer = setInterval(() => void this.flush().catch(() => undefined), Math.max(this.flushIntervalMs, 200));
    this.timer.unref();
  }

  enqueue(record: SettlementRecord): void {
    this.queue.push(record);
    if (this.stopped) return;
    if (this.flushIntervalMs === 0 || this.queue.length >= this.maxBatch) {
      this.scheduled ??= setImmediate(() => {
        this.scheduled = undefined;
        void this.flush().catch(() => undefined);
      });
    }
  }

  /** Takes the queued records out (a caller that writes them itself, e.g. to a spill file). */
  take(): SettlementRecord[] {
    const taken = this.queue;
    this.queue = [];
    return taken;
  }

  get pending(): number {
    return this.queue.length;
  }

  /** Writes every queued record (in batches); rejects if a batch fails (it stays queued). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.queue.length === 0) return;
    this.flushing = this.writeAll().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /** Stops the timer and writes what is left, retrying a few times before giving up loudly. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    if (this.scheduled) clearImmediate(this.scheduled);
    for (let attempt = 1; this.queue.length > 0; attempt++) {
      try {
        await this.flush();
      } catch (error) {
        if (attempt >= 5) {
          this.logger.error(
            { err: error, lost: this.queue.length },
            'could not write usage events at shutdown; they are lost',
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  }

  private async writeAll(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, this.maxBatch);
      this.observer?.beginWrite(batch);
      let committed = false;
      try {
        await writeSettlements(this.store, this.logger, batch, this.clock.now());
        committed = true;
      } catch (error) {
        this.logger.error({ err: error, queued: this.queue.length }, 'could not write usage events; will retry');
        // The answers waiting for these records go out now: the records stay queued here.
        this.onWritten?.(batch);
        throw error;
      } finally {
        this.observer?.endWrite(batch, committed);
      }
      this.queue = this.queue.slice(batch.length);
      this.onWritten?.(batch);
    }
  }
}

import type { AdmissionCheck, AdmissionDecision, Settlement } from './hot-counters.js';
import { MemoryHotCounters } from './memory-hot-counters.js';
import type { MeteringBackend, MeteringBackendContext } from './metering-backend.js';
import { UsageWriter } from './usage-writer.js';
import { settlementBatchWriter } from './settlement-batch-writer.js';
import type { Store } from '../store/database.js';

/** Beside a SQLite file; none for PostgreSQL or an in-memory database (nothing there outlives the process). */
function defaultJournalFile(store: Store): string | undefined {
  return store.dialect === 'sqlite' && store.description !== 'sqlite::memory:'
    ? `${store.description.slice('sqlite:'.length)}-settlement-journal.jsonl`
    : undefined;
}

/**
 * Metering of one instance: the hot counters live in this process, settlements go to the store
 * through its writer, and ledger entries written elsewhere (the CLI) are picked up by a poll.
 */
export class MemoryMeteringBackend implements MeteringBackend {
  readonly counters: MemoryHotCounters;
  readonly writer: UsageWriter;
  readonly ledgerIdentity = undefined;
  readonly unansweredHolds = 0;

  constructor(private readonly context: MeteringBackendContext) {
    this.counters = new MemoryHotCounters(context.source);
    // Without Redis the store is the only durable record: a journal beside a SQLite file lets
    // answers end after one append instead of a commit (settlement-journal.ts).
    this.writer = new UsageWriter(context.store, context.logger, context.clock, this.counters, {
      journalFile: defaultJournalFile(context.store),
      // A SQLite file: batches are written on a thread of their own (settlement-batch-writer.ts).
      batchWriter: context.writerOptions?.batchWriter ?? settlementBatchWriter(context.store, context.logger),
      ...context.writerOptions,
    });
    this.counters.setSink(this.writer);
  }

  async start(): Promise<void> {
    await this.counters.primeLedgerPoll();
    this.counters.startLedgerPoll(1000, (error) =>
      this.context.logger.warn({ err: error }, 'could not read new ledger entries; retrying'),
    );
    await this.writer.start();
  }

  async drain(): Promise<void> {
    await this.writer.stop();
  }

  async close(): Promise<void> {
    await this.counters.close();
  }

  async flush(): Promise<void> {
    await this.writer.flush();
  }

  admit(check: AdmissionCheck): Promise<AdmissionDecision> {
    return this.counters.admit(check);
  }

  settle(settlement: Settlement): void {
    this.counters.settleNow(settlement);
  }

  get backlog(): number {
    return this.writer.pending;
  }

  settlementStalled(): string | null {
    return null;
  }
}

import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import type { SettlementRecord } from './settlement-record.js';
import { writeSettlements } from './write-settlements.js';
import { SettlementSpill } from './settlement-spill.js';
import { SettlementJournal } from './settlement-journal.js';
import { inThreadWriter, type SettlementBatchWriter } from './settlement-batch-writer.js';

export interface UsageWriterOptions {
  /** Told about records once they are durable (committed, or spilled to disk). */
  onWritten?: (records: SettlementRecord[]) => void;
  /**
   * How long settled records wait before they are written. 0 (the default): written on the next
   * turn of the event loop, every record settled in one turn in one transaction.
   */
  flushIntervalMs?: number;
  maxBatch?: number;
  /** Where records go while the store is down (JSON lines, fsync'd). */
  spillFile?: string;
  /** Most records kept in memory; beyond it they are spilled even while the store answers. */
  maxQueued?: number;
  /**
   * Append each record to this file as it is settled and tell `onWritten` at once (answers end
   * after one write(2), not after a commit); the store is then written every `journalCommitMs`
   * (default 50 ms) in one batch. See settlement-journal.ts.
   */
  journalFile?: string;
  journalCommitMs?: number;
  /**
   * Where batches are written (default: in this thread). The memory backend passes
   * `settlementBatchWriter`, a thread of its own for a SQLite file; stop() closes it.
   */
  batchWriter?: SettlementBatchWriter;
}

/** Told when a store write of some records starts and ends (the memory hot counters' pending figures). */
export interface WriteObserver {
  beginWrite(records: SettlementRecord[]): void;
  endWrite(records: SettlementRecord[], committed: boolean): void;
}

/**
 * The durable record of settlements when there is no Redis stream: records are queued in memory
 * and written on the next turn of the event loop, one transaction per batch (usage events,
 * ledger charges, key spend). When the store fails, the queue goes to the spill file (bounded
 * memory, nothing dropped) and later records go there too, until a retry finds the store back:
 * then the spill is written and a log line gives the counts. stop() writes everything left.
 */
export class UsageWriter {
  private queue: SettlementRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private scheduled: NodeJS.Immediate | undefined;
  private flushing: Promise<void> | undefined;
  private readonly flushIntervalMs: number;
  private readonly maxBatch: number;
  private readonly maxQueued: number;
  private readonly onWritten: ((records: SettlementRecord[]) => void) | undefined;
  private readonly spill: SettlementSpill | null;
  private readonly journal: SettlementJournal | null;
  private readonly journalCommitMs: number;
  private readonly batchWriter: SettlementBatchWriter;
  private batchTimer: NodeJS.Timeout | undefined;
  /** Queued records whose journal line is not written yet (written once per turn of the event loop). */
  private unjournaled: SettlementRecord[] = [];
  private journalWrite: NodeJS.Immediate | undefined;
  /** A journal line was written in this turn of the event loop or the one before (see journalLater). */
  private journaledRecently = false;
  private journalIdle: NodeJS.Immediate | undefined;
  private stopped = false;
  /** Since when the store refuses writes (null: it takes them). */
  private downSince: number | null = null;
  private spilledDuringOutage = 0;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly clock: { now(): number },
    private readonly observer: WriteObserver | null,
    options: UsageWriterOptions = {},
  ) {
    this.flushIntervalMs = options.flushIntervalMs ?? 0;
    this.maxBatch = options.maxBatch ?? 500;
    this.maxQueued = options.maxQueued ?? 10_000;
    this.onWritten = options.onWritten;
    this.spill = options.spillFile ? new SettlementSpill(options.spillFile) : null;
    this.journal = options.journalFile ? new SettlementJournal(options.journalFile) : null;
    this.journalCommitMs = options.journalCommitMs ?? 50;
    this.batchWriter = options.batchWriter ?? inThreadWriter(store, logger);
  }

  /** Writes what an earlier process spilled, then starts the retry timer. */
  async start(): Promise<void> {
    await this.replayJournal();
    if (this.spill?.hasRecords) {
      this.downSince = this.clock.now();
      await this.flush().catch(() => undefined);
    }
    this.timer = setInterval(() => void this.flush().catch(() => undefined), Math.max(this.flushIntervalMs, 1000));
    this.timer.unref();
  }

  enqueue(record: SettlementRecord): void {
    this.queue.push(record);
    if (this.stopped) return;
    if (this.journal) {
      this.journalLater(record);
      if (this.spill && this.queue.length > this.maxQueued) this.spillQueue();
      if (this.queue.length >= this.maxBatch) this.flushSoon();
      else
        this.batchTimer ??= setTimeout(() => {
          this.batchTimer = undefined;
          void this.flush().catch(() => undefined);
        }, this.journalCommitMs);
      return;
    }
    if (this.spill && this.queue.length > this.maxQueued) this.spillQueue();
    if (this.flushIntervalMs === 0 || this.queue.length >= this.maxBatch) this.flushSoon();
  }

  /**
   * Records settled in one turn of the event loop go to the journal in one write(2), right after
   * that turn (setImmediate): one system call per turn instead of one per record. Their answers
   * end only once it is written, as before.
   *
   * Except when the journal is idle (Nagle's rule, as the Redis connection's `batchWrites`): a
   * record settled when nothing was journaled in this turn or the one before is written at once,
   * before its answer is even serialised, so its end is not held for the turn's end (issue 31:
   * one request at a time, the end waited ~10–20 µs for the `setImmediate` with nothing to share
   * its write(2) with). Under load, turns that follow a write hold their records for the turn's
   * single write as before; only the first record after an idle turn pays a write of its own.
   */
  private journalLater(record: SettlementRecord): void {
    this.unjournaled.push(record);
    if (this.journalWrite === undefined && !this.journaledRecently) {
      this.writeJournal();
      return;
    }
    this.journalWrite ??= setImmediate(() => this.writeJournal());
  }

  /** A line was written: the journal counts as busy until the end of the next check phase. */
  private noteJournalWrite(): void {
    this.journaledRecently = true;
    this.journalIdle ??= setImmediate(() => {
      this.journalIdle = undefined;
      this.journaledRecently = false;
    });
  }

  /** In the journal: durable now, so whoever waits for them is told at once. */
  private writeJournal(): void {
    if (this.journalWrite) clearImmediate(this.journalWrite);
    this.journalWrite = undefined;
    const records = this.unjournaled;
    if (records.length === 0) return;
    this.unjournaled = [];
    try {
      this.journal!.append(records);
    } catch (error) {
      // The journal cannot be written (disk full?): these records' answers wait for the commit
      // (they are queued; onWritten is called for them once committed or spilled).
      this.logger.warn({ err: error }, 'could not append to the settlement journal; waiting for the store');
      this.flushSoon();
      return;
    }
    this.noteJournalWrite();
    this.onWritten?.(records);
  }

  private flushSoon(): void {
    this.scheduled ??= setImmediate(() => {
      this.scheduled = undefined;
      void this.flush().catch(() => undefined);
    });
  }

  /** Takes the queued records out (a caller that writes them itself). */
  take(): SettlementRecord[] {
    const taken = this.queue;
    this.queue = [];
    // Whoever takes them writes them (the spill file, then onWritten): no journal line needed.
    this.unjournaled = [];
    return taken;
  }

  /** Records waiting in memory. */
  get pending(): number {
    return this.queue.length;
  }

  /** Writes every queued (and spilled) record; rejects if the store failed (they stay queued or spilled). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.queue.length === 0 && this.downSince === null) return;
    this.flushing = this.writeAll().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /** Stops the timer and writes what is left; what the store will not take stays in the spill file. */
  async stop(): Promise<void> {
    try {
      await this.stopWriting();
    } finally {
      // After the last batch: the writer thread (if any) has answered every batch and is joined.
      await this.batchWriter.close();
    }
  }

  private async stopWriting(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.batchTimer);
    if (this.scheduled) clearImmediate(this.scheduled);
    if (this.journalIdle) clearImmediate(this.journalIdle);
    for (let attempt = 1; this.queue.length > 0 || this.downSince !== null; attempt++) {
      try {
        await this.flush();
      } catch (error) {
        if (attempt >= 5) {
          if (this.spill) {
            this.spillQueue();
            this.logger.error(
              { err: error, spillFile: this.spill.path },
              'could not write usage events at shutdown; they wait in the spill file for the next start',
            );
          } else {
            this.logger.error(
              { err: error, lost: this.queue.length },
              'could not write usage events at shutdown; they are lost',
            );
          }
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
    // Everything is committed: the journal holds nothing the store lacks.
    if (this.journal) {
      this.journal.discardSealed(this.journal.seal());
      this.journal.close();
    }
  }

  private async writeAll(): Promise<void> {
    // Every record queued so far is in the journal (those of this turn written first) up to the
    // mark; once they are committed the journal is emptied up to it (settlement-journal.ts).
    if (this.journal) this.writeJournal();
    const journaled = this.journal?.seal();
    if (this.downSince !== null) {
      // The store was down: new records go to disk at once (the answers waiting for them go
      // out), and one attempt drains the spill; success means the store is back.
      this.spillQueue();
      await this.drainSpill();
    }
    // With a journal, the records queued when the pass starts (those the mark covers); later ones
    // wait for their own batch. A write off this thread (settlement-batch-writer.ts) takes a few
    // ms of wall time in which records keep coming: draining those too made a stream of batches
    // of a few records each, each paying the transaction's per-user and per-key statements and
    // its commit (issue 31, branch `sqlite-writer-thread`: 22 records a batch instead of ~100 at
    // 2,000 a second, and ~65 µs of the thread's CPU a record). In this thread nothing is queued
    // during a SQLite write, so this changes nothing there.
    let left = this.journal ? this.queue.length : Infinity;
    while (this.queue.length > 0 && left > 0) {
      const batch = this.queue.slice(0, Math.min(this.maxBatch, left));
      left -= batch.length;
      try {
        await this.writeBatch(batch);
      } catch (error) {
        if (!this.spill) {
          this.logger.error({ err: error, queued: this.queue.length }, 'could not write usage events; will retry');
          this.onWritten?.(batch);
          throw error;
        }
        this.downSince = this.clock.now();
        this.spilledDuringOutage = 0;
        this.logger.error(
          { err: error, spillFile: this.spill.path },
          'could not write usage events to the store; spilling them to disk until it is back',
        );
        this.spillQueue();
        throw error;
      }
      this.queue = this.queue.slice(batch.length);
      this.onWritten?.(batch);
    }
    if (journaled) this.journal!.discardSealed(journaled);
  }

  private async writeBatch(batch: SettlementRecord[]): Promise<void> {
    this.observer?.beginWrite(batch);
    let committed = false;
    try {
      await this.batchWriter.write(batch, this.clock.now());
      committed = true;
    } finally {
      this.observer?.endWrite(batch, committed);
    }
  }

  private spillQueue(): void {
    if (!this.spill || this.queue.length === 0) return;
    const records = this.take();
    this.spill.append(records);
    this.spilledDuringOutage += records.length;
    this.onWritten?.(records);
    // Every journaled record not committed was in the queue: it is in the spill file now.
    this.journal?.discardSealed(this.journal.seal());
  }

  /**
   * Records an earlier process journaled and may not have committed: to the store (or the spill)
   * first, in this thread (before anything is served: nothing to take off the event loop).
   */
  private async replayJournal(): Promise<void> {
    if (!this.journal) return;
    const files = this.journal.leftovers();
    if (files.length === 0) return;
    const records = SettlementJournal.read(files);
    try {
      for (let start = 0; start < records.length; start += this.maxBatch)
        await writeSettlements(this.store, this.logger, records.slice(start, start + this.maxBatch), this.clock.now());
    } catch (error) {
      if (!this.spill) throw error;
      this.spill.append(records);
    }
    SettlementJournal.remove(files);
    this.logger.info(
      { records: records.length, files: files.length },
      `wrote ${records.length} settlements an earlier process had journaled`,
    );
  }

  private async drainSpill(): Promise<void> {
    let written = 0;
    for (let records = this.spill?.take(); records; records = this.spill?.take()) {
      for (let start = 0; start < records.length; start += this.maxBatch)
        await this.writeBatch(records.slice(start, start + this.maxBatch));
      this.spill!.drained();
      written += records.length;
    }
    const outageMs = this.clock.now() - (this.downSince ?? this.clock.now());
    this.downSince = null;
    this.logger.info(
      { written, spilled: this.spilledDuringOutage, outageMs },
      `store is back: wrote ${written} settlements spilled to disk during the outage`,
    );
  }
}

import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import type { SettlementRecord } from './settlement-record.js';
import { writeSettlements } from './write-settlements.js';

/** Writes one batch of settlements to the store in one transaction; resolves once it is committed. */
export interface SettlementBatchWriter {
  write(batch: SettlementRecord[], now: number): Promise<void>;
  /** Every batch given before has been answered; nothing runs after. */
  close(): Promise<void>;
}

/** Messages to the writer thread (settlement-writer-worker.ts). */
export type ToWorker = { type: 'write'; id: number; records: SettlementRecord[]; now: number } | { type: 'stop' };

/** Messages from it. */
export type FromWorker =
  | { type: 'written'; id: number }
  | { type: 'failed'; id: number; message: string; code?: string }
  | { type: 'warn'; details: object; message: string }
  | { type: 'stopped' };

/**
 * The one place that chooses where settlement batches are written. A SQLite file: on a thread of
 * its own with its own connection to the file (WAL: the serving connection reads what it
 * committed once it answers), so the batch's inserts, index updates and commit (~35–60 µs a record
 * under load, 2–3 ms a batch of 50) leave the event loop (issue 31). Anything else in this
 * thread, as before: `:memory:` (a second connection would open an empty database of its own)
 * and PostgreSQL (the pool's queries already run on the server).
 */
export function settlementBatchWriter(store: Store, logger: Logger): SettlementBatchWriter {
  if (store.dialect === 'sqlite' && store.sqliteFile) return new ThreadSettlementWriter(store, logger);
  return inThreadWriter(store, logger);
}

export function inThreadWriter(store: Store, logger: Logger): SettlementBatchWriter {
  return {
    write: (batch, now) => writeSettlements(store, logger, batch, now),
    close: async () => undefined,
  };
}

/** The worker as a module beside this one: compiled (.js) as is, from source (.ts, tests) with tsx as its loader. */
function startWorker(file: string): Worker {
  const here = import.meta.url;
  const fromSource = here.endsWith('.ts');
  const url = new URL(`./settlement-writer-worker.${fromSource ? 'ts' : 'js'}`, here);
  const execArgv = fromSource ? ['--import', pathToFileURL(createRequire(here).resolve('tsx/esm')).href] : [];
  return new Worker(url, { workerData: { file }, execArgv });
}

interface Waiting {
  batch: SettlementRecord[];
  now: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * Batches posted to the writer thread (structured clone of the records: see docs/benchmarks.md,
 * "sqlite-writer-thread", for its cost on this thread against the write it replaces), answered
 * once committed. A failed batch rejects as an in-thread write would (UsageWriter keeps its
 * records, retries or spills them). A thread that dies (an exit or an uncaught error) is logged,
 * its unanswered batches are written again in this thread (a batch it had committed just before
 * dying charges nothing twice: the write is idempotent; one it had not was rolled back with its
 * connection), and so is every later batch: the in-thread writer is the path every other store
 * takes, and a thread that died once (a native fault, memory) would likely die again in a
 * restart loop.
 */
export class ThreadSettlementWriter implements SettlementBatchWriter {
  private worker: Worker | null;
  private readonly fallback: SettlementBatchWriter;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private closing = false;
  private rewriting: Promise<void> = Promise.resolve();

  constructor(
    store: Store,
    private readonly logger: Logger,
    start: (file: string) => Worker = startWorker,
  ) {
    this.fallback = inThreadWriter(store, logger);
    try {
      this.worker = start(store.sqliteFile!);
    } catch (error) {
      logger.warn({ err: error }, 'could not start the settlement writer thread; writing settlements in this thread');
      this.worker = null;
      return;
    }
    const worker = this.worker;
    worker.on('message', (message: FromWorker) => this.answer(message));
    worker.once('error', (error) => this.died(worker, error));
    worker.once('exit', (code) => this.died(worker, new Error(`the settlement writer thread exited (code ${code})`)));
    // Idle, it does not keep the process alive; referenced while a batch is out (see write).
    worker.unref();
  }

  /** Whether batches go to the thread (false: it died or never started). */
  get onThread(): boolean {
    return this.worker !== null;
  }

  /** The thread, for tests that kill it. */
  get thread(): Worker | null {
    return this.worker;
  }

  write(batch: SettlementRecord[], now: number): Promise<void> {
    const worker = this.worker;
    if (!worker || this.closing) return this.fallback.write(batch, now);
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      if (this.waiting.size === 0) worker.ref();
      this.waiting.set(id, { batch, now, resolve, reject });
      worker.postMessage({ type: 'write', id, records: batch, now } satisfies ToWorker);
    });
  }

  /** Lets the thread finish what it was given, then joins it (2 s at most, then it is terminated). */
  async close(): Promise<void> {
    this.closing = true;
    const worker = this.worker;
    if (!worker) return;
    worker.ref();
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'stop' } satisfies ToWorker);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 2000)))]);
    clearTimeout(timer);
    await worker.terminate();
    this.died(worker, new Error('the settlement writer thread was stopped'));
    // Batches it had not answered in time: written here.
    await this.rewriting;
  }

  private answer(message: FromWorker): void {
    if (message.type === 'warn') {
      this.logger.warn(message.details, message.message);
      return;
    }
    if (message.type === 'stopped') return;
    const waiter = this.waiting.get(message.id);
    if (!waiter) return;
    this.waiting.delete(message.id);
    if (this.waiting.size === 0) this.worker?.unref();
    if (message.type === 'written') waiter.resolve();
    else waiter.reject(Object.assign(new Error(message.message), { code: message.code }));
  }

  private died(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = null;
    if (!this.closing)
      this.logger.error(
        { err: error, unanswered: this.waiting.size },
        'the settlement writer thread died; its batches are written again, in this thread from now on',
      );
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    this.rewriting = (async () => {
      // One after another, in the order they were given (as the thread would have).
      for (const waiter of waiting)
        await this.fallback.write(waiter.batch, waiter.now).then(waiter.resolve, waiter.reject);
    })();
  }
}

import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';

/** Checked this often; a checkpoint runs when the WAL is larger than the threshold. */
const INTERVAL_MS = 200;
/** About 1,000 pages of 4 KiB: SQLite's own autocheckpoint size. */
const THRESHOLD_BYTES = 4 * 1024 * 1024;

/**
 * The worker: its own connection to the database file, which copies the WAL back into the
 * database (PASSIVE: it never waits for, nor blocks, the serving connection) whenever the WAL
 * has grown past the threshold; the fsyncs then block only this thread. Plain CommonJS given as
 * text (one file whether the gateway runs compiled or from source), better-sqlite3 by its path.
 */
const WORKER_SOURCE = `
const { statSync } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const SqliteDatabase = require(workerData.driver);
const { file, intervalMs, thresholdBytes } = workerData;
const database = new SqliteDatabase(file);
database.pragma('busy_timeout = 5000');
// A checkpoint copies WAL frames into the file without going through this connection's page
// cache: a small one, instead of better-sqlite3's 16 MB.
database.pragma('cache_size = -256');
const walBytes = () => {
  try {
    return statSync(file + '-wal').size;
  } catch {
    return 0;
  }
};
const timer = setInterval(() => {
  if (walBytes() < thresholdBytes) return;
  try {
    database.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // busy or closing: the next tick tries again
  }
}, intervalMs);
parentPort.on('message', (message) => {
  if (!message || message.type !== 'stop') return;
  clearInterval(timer);
  database.close();
  parentPort.close();
});
`;

/**
 * SQLite checkpoints the WAL itself, inside whichever commit crosses 1,000 pages: that commit
 * then writes the pages back and fsyncs the WAL and the database, on the event loop (better-sqlite3
 * is synchronous). On a busy disk that held every request for tens to hundreds of milliseconds
 * (issue 31: added p99 of 40 ms at 125 req/s, 444 ms at 500 req/s). Here the serving connection
 * never checkpoints (`wal_autocheckpoint = 0`); a worker thread with a connection of its own does,
 * PASSIVE (never blocking the writer). Returns the function that stops it.
 */
export function checkpointOffThread(sqlite: Database, file: string): () => Promise<void> {
  let worker: Worker;
  try {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { driver, file, intervalMs: INTERVAL_MS, thresholdBytes: THRESHOLD_BYTES },
    });
  } catch {
    // No worker (an unusual runtime): SQLite's own checkpoints, as before.
    return async () => undefined;
  }
  // Only once the worker runs does the serving connection stop checkpointing; if it dies, SQLite's own resume.
  worker.once('online', () => sqlite.pragma('wal_autocheckpoint = 0'));
  worker.once('error', () => {
    if (sqlite.open) sqlite.pragma('wal_autocheckpoint = 1000');
  });
  worker.unref();
  return async () => {
    // Referenced again while it stops: a command that awaits destroy() and has nothing else
    // pending must not exit with the promise unsettled (Node's exit code 13).
    worker.ref();
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'stop' });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 2000)))]);
    clearTimeout(timer);
    await worker.terminate();
  };
}

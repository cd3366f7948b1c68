import { parentPort, workerData } from 'node:worker_threads';
import { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { openSqliteConnection } from '../store/database.js';
import { ImmediateSqliteDialect } from '../store/sqlite-dialect.js';
import type { Database } from '../store/schema.js';
import { withStatementCache } from '../store/sqlite-statement-cache.js';
import type { SettlementRecord } from './settlement-record.js';
import { writeSettlements } from './write-settlements.js';
import type { ToWorker, FromWorker } from './settlement-batch-writer.js';

/**
 * The settlement writer thread (settlement-batch-writer.ts): its own connection to the SQLite
 * file, the same `writeSettlements` as the in-thread writer, one batch at a time in the order
 * they arrive. Answers each batch once its transaction is committed (or has failed); a `stop`
 * arrives after every batch posted before it, so answering it means all of them are answered.
 */
const port = parentPort!;
const { file } = workerData as { file: string };
const sqlite = openSqliteConnection(file);
// The checkpoint thread copies the WAL back (sqlite-wal-checkpoint.ts); SQLite's own checkpoint
// inside a commit would be this thread's anyway, so it stays as SQLite has it.
const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) }) });
const store = { db, dialect: 'sqlite' as const };
const logger = {
  warn: (details: object, message: string) => port.postMessage({ type: 'warn', details, message } satisfies FromWorker),
} as Pick<Logger, 'warn'>;

let chain = Promise.resolve();
port.on('message', (message: ToWorker) => {
  chain = chain.then(async () => {
    if (message.type === 'stop') {
      await db.destroy();
      port.postMessage({ type: 'stopped' } satisfies FromWorker);
      port.close();
      return;
    }
    try {
      await writeSettlements(store, logger, message.records as SettlementRecord[], message.now);
      port.postMessage({ type: 'written', id: message.id } satisfies FromWorker);
    } catch (error) {
      port.postMessage({
        type: 'failed',
        id: message.id,
        message: error instanceof Error ? error.message : String(error),
        code: (error as { code?: unknown }).code === undefined ? undefined : String((error as { code: unknown }).code),
      } satisfies FromWorker);
    }
  });
});

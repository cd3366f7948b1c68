import type { Database as SqliteConnection } from 'better-sqlite3';
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type QueryResult } from 'kysely';

/** The longest a statement waits for another connection's write lock, all tries together. */
export const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 5_000;
/** Waits between tries, ms: short at first (a settlement batch's commit takes a few ms), then this last one repeated. */
const RETRY_DELAYS_MS = [1, 1, 2, 2, 4, 4, 8];

export interface BusyRetryOptions {
  /** All tries of one statement end within this budget (default 5 s, SQLite's busy_timeout before). */
  busyTimeoutMs?: number;
}

/** SQLITE_BUSY and its extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_BUSY_RECOVERY, …). */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The serving connection as Kysely sees it, with SQLite's lock waits taken off the event loop.
 * The connection's busy_timeout is 0: a statement that finds another connection's write lock
 * (the settlement writer thread's commit, the checkpoint, a CLI command on the same file) fails at
 * once with SQLITE_BUSY instead of sleeping in SQLite's busy handler, which held the whole event
 * loop ~10 ms a time (docs/metering.md, "Durability"). Here it is tried again after a short timer,
 * the loop serving other requests meanwhile, until the budget runs out; then the last SQLITE_BUSY
 * is thrown, the error SQLite gave when its busy_timeout ran out.
 *
 * Tried again only when the connection was outside a transaction: a statement on its own (or the
 * `BEGIN IMMEDIATE` that opens a transaction) that failed with SQLITE_BUSY changed nothing, as
 * SQLite rolls back the failed statement's implicit transaction; inside a transaction this
 * connection already holds the write lock (transactions begin IMMEDIATE), so nothing there waits.
 * Kysely's one-connection mutex stays held while a statement waits: later queries queue behind it
 * and run in the order they were issued, as they did when the wait blocked the thread.
 */
class BusyRetryConnection implements DatabaseConnection {
  constructor(
    private readonly inner: DatabaseConnection,
    private readonly sqlite: SqliteConnection,
    private readonly budgetMs: number,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.sqlite.inTransaction) return this.inner.executeQuery<R>(query);
    try {
      // Kysely's SQLite connection runs the statement synchronously and throws its error at once
      // (sqlite-dialect.test.ts fails if that changes): a statement that does not meet the lock
      // costs no promise of its own here.
      return this.inner.executeQuery<R>(query);
    } catch (error) {
      if (!isBusy(error) || this.sqlite.inTransaction) return Promise.reject(error as Error);
      return this.retry<R>(query, error);
    }
  }

  private async retry<R>(query: CompiledQuery, first: unknown): Promise<QueryResult<R>> {
    const started = performance.now();
    let last = first;
    for (let tries = 1; ; tries++) {
      const waited = performance.now() - started;
      const delay = RETRY_DELAYS_MS[Math.min(tries - 1, RETRY_DELAYS_MS.length - 1)]!;
      if (waited + delay > this.budgetMs) throw last;
      await sleep(delay);
      try {
        return await this.inner.executeQuery<R>(query);
      } catch (error) {
        if (!isBusy(error) || this.sqlite.inTransaction) throw error;
        last = error;
      }
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    // Reads only (Kysely streams selects); in WAL mode a read does not wait for a writer.
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/**
 * Transactions begin IMMEDIATE (the write lock taken at BEGIN) instead of Kysely's deferred
 * BEGIN. With one connection it made no difference; with the settlement writer thread's
 * connection writing the same file, a deferred transaction that reads before it writes fails at
 * once with SQLITE_BUSY (its snapshot is older than the other connection's commit, and SQLite
 * cannot wait that out), where an immediate one waits for the other commit (a few ms) and then
 * reads fresh rows. On the serving connection (`busyRetry` given) the wait is a timer between
 * tries of the BEGIN (BusyRetryConnection); on the writer thread's, SQLite's busy_timeout.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  private wrapped: DatabaseConnection | undefined;

  constructor(
    settings: ConstructorParameters<typeof SqliteDialect>[0],
    private readonly busyRetry: { sqlite: SqliteConnection; options: BusyRetryOptions } | undefined,
  ) {
    super(settings);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    if (!this.busyRetry) return connection;
    const { sqlite, options } = this.busyRetry;
    this.wrapped ??= new BusyRetryConnection(
      connection,
      sqlite,
      options.busyTimeoutMs ?? DEFAULT_SQLITE_BUSY_TIMEOUT_MS,
    );
    return this.wrapped;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

export class ImmediateSqliteDialect extends SqliteDialect {
  constructor(
    private readonly settings: ConstructorParameters<typeof SqliteDialect>[0],
    /** The serving connection: its busy_timeout must be 0, lock waits become timers (BusyRetryConnection). */
    private readonly busyRetry?: { sqlite: SqliteConnection; options: BusyRetryOptions },
  ) {
    super(settings);
  }

  override createDriver(): SqliteDriver {
    return new ImmediateSqliteDriver(this.settings, this.busyRetry);
  }
}

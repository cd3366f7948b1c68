import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from './schema.js';
import { DEFAULT_SQLITE_BUSY_TIMEOUT_MS, ImmediateSqliteDialect } from './sqlite-dialect.js';
import { withStatementCache } from './sqlite-statement-cache.js';
import { checkpointOffThread } from './sqlite-wal-checkpoint.js';
import { CurrentSchemaPostgresDialect } from './current-schema-introspector.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Human-readable location, password masked, for logs. */
  description: string;
  /**
   * SQLite on a file only: its absolute path, for a second connection of another thread (the
   * settlement writer's, settlement-batch-writer.ts). Absent for `:memory:` (a second connection
   * would open a database of its own) and for PostgreSQL.
   */
  sqliteFile?: string;
  /**
   * Runs `work` on a handle without the statement timeouts, for migrations: a copy or an index
   * build of a large table may take far longer than any request's query should. PostgreSQL: a
   * connection of its own (statement_timeout 0 for its session, no client-side query timeout),
   * closed when `work` ends; `db` keeps its timeouts meanwhile. SQLite has none: `work(db)`.
   */
  withoutStatementTimeout<T>(work: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  destroy(): Promise<void>;
}

export interface OpenStoreOptions {
  /** PostgreSQL only: run every statement in this schema (tests isolate themselves this way). */
  searchPath?: string;
  poolSize?: number;
  /**
   * Longest wait to open a connection or get one from a busy pool (default 5 s): a database that
   * is down or unreachable fails the request quickly instead of holding it.
   */
  connectTimeoutMs?: number;
  /**
   * Longest a statement may run (default 30 s). The server cancels it (statement_timeout), and
   * the client gives up a little later when the server cannot even do that (stopped, partitioned).
   */
  statementTimeoutMs?: number;
  /**
   * SQLite only: the longest a statement waits for another connection's write lock (the
   * settlement writer thread's commit, a command on the same file) before it fails with
   * SQLITE_BUSY, answered 503 `database_unavailable` (default 5 s). The wait is timers between
   * tries, off the event loop (sqlite-dialect.ts).
   */
  sqliteBusyTimeoutMs?: number;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/** SQLite's page cache per connection, KiB (SQLite's own default; see openStore). */
const SQLITE_CACHE_KIB = 2000;
const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;

/** BIGINT comes back from pg as a string; our BIGINTs are times and micro-units, safe as numbers. */
function parseBigInt(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`BIGINT ${text} does not fit a JavaScript number`);
  return value;
}

/** Where a DATABASE_URL points, for messages: a PostgreSQL password masked, a SQLite path made absolute. */
export function describeDatabaseUrl(databaseUrl: string): string {
  if (databaseUrl.startsWith('postgres://') || databaseUrl.startsWith('postgresql://'))
    return databaseUrl.replace(/:[^:@/]*@/, ':***@');
  const path = databaseUrl.startsWith('sqlite:') ? databaseUrl.slice('sqlite:'.length) : databaseUrl;
  return `sqlite:${path === ':memory:' ? path : resolve(path)}`;
}

/**
 * better-sqlite3 13 loads on Node 20 but crashes the whole process (SIGSEGV) at `new Database()`:
 * a clear error first, for a runtime that slipped past `engines` (npm's engine-strict covers only
 * installs).
 */
export function assertSqliteRuntime(nodeVersion = process.versions.node): void {
  const major = Number(nodeVersion.split('.')[0]);
  if (major < 22)
    throw new Error(
      `SQLite needs Node 22 or later, this is Node ${nodeVersion} (docs/deploy.md "Node versions"; Node 24 LTS recommended)`,
    );
}

/**
 * The pg driver, loaded when a PostgreSQL store is opened (at start, as before) rather than by every
 * gateway: on SQLite it was ~1.4 MB of heap that no request uses (docs/benchmarks.md, "what the RSS
 * is made of"). Synchronous, so openStore and its errors stay where they were.
 */
function loadPg(): typeof pg {
  return createRequire(import.meta.url)('pg') as typeof pg;
}

/**
 * A pg pool for the store. `limits` sets the timeouts: the store's pool has the server's
 * statement_timeout and a client-side query_timeout; the migrations' pool has neither.
 */
function postgresPool(
  databaseUrl: string,
  options: OpenStoreOptions,
  limits: { max: number; statement_timeout?: number; query_timeout?: number; serverOptions?: string[] },
): pg.Pool {
  const ours = [
    ...(options.searchPath ? [`-c search_path=${options.searchPath}`] : []),
    ...(limits.serverOptions ?? []),
  ];
  // pg reads PGOPTIONS only when no `options` is given: ours go after it (a later -c wins), so a
  // search_path or other setting the operator put in PGOPTIONS still holds on these connections.
  const serverOptions = ours.length > 0 && process.env.PGOPTIONS ? [process.env.PGOPTIONS, ...ours] : ours;
  const { Pool, types } = loadPg();
  const pool = new Pool({
    connectionString: databaseUrl,
    max: limits.max,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    statement_timeout: limits.statement_timeout,
    query_timeout: limits.query_timeout,
    // A session left idle inside a transaction (a stalled client) gives its locks back.
    idle_in_transaction_session_timeout: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
    // Dead peers (a failover, a cut network) are noticed by the OS instead of never.
    keepAlive: true,
    options: serverOptions.length > 0 ? serverOptions.join(' ') : undefined,
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === 20 ? parseBigInt : types.getTypeParser(oid, format as 'text')) as typeof types.getTypeParser,
    },
  });
  // An idle connection that drops (database restart, failover, a proxy's idle cut) is reported
  // here; the pool discards it and connects again when needed. Unheard, it would end the process.
  pool.on('error', () => undefined);
  // A connection that drops while checked out fails its query (the caller sees that error) and
  // also emits 'error' on the client, which with no listener would end the process too.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * A connection to a SQLite file (or `:memory:`) with the gateway's settings; the serving
 * connection and the settlement writer thread's (settlement-writer-worker.ts) both open theirs here.
 */
export function openSqliteConnection(
  file: string,
  busyTimeoutMs = DEFAULT_SQLITE_BUSY_TIMEOUT_MS,
): SqliteDatabase.Database {
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  // The serving connection passes 0: its lock waits are timers (sqlite-dialect.ts), not SQLite's
  // busy handler sleeping on the event loop. Other threads' connections wait in SQLite.
  sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
  sqlite.pragma('foreign_keys = ON');
  // better-sqlite3 builds SQLite with a 16 MB page cache per connection (SQLite's own default is
  // 2 MB). The serving connection's writes touch the last pages of each index and reads of history
  // find the file in the OS page cache anyway; the larger cache only held 14 MB more, and its
  // malloc'd pages fragmented the process heap: RSS after load 321 → 275 MB (issue 31).
  sqlite.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
  // Temporary files in memory. A settlement batch's multi-row inserts (up to 256 rows, each row
  // in the table and its indexes) keep a statement journal that outgrows SQLite's in-memory
  // threshold: by default it then opened a temporary file per batch, ~36 page writes into it, and
  // closed it again (strace, 100 batches of 50 rows: 98 `openat`, 11,653 `pwrite64` against 2 and
  // 8,035). The journal is the statement's changed pages, a few hundred KB at most (issue 31).
  sqlite.pragma('temp_store = memory');
  return sqlite;
}

export function openStore(databaseUrl: string, options: OpenStoreOptions = {}): Store {
  if (databaseUrl.startsWith('postgres://') || databaseUrl.startsWith('postgresql://')) {
    const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({
        pool: postgresPool(databaseUrl, options, {
          max: options.poolSize ?? 10,
          statement_timeout: statementTimeoutMs,
          // The server's own timeout answers first; this catches a server that answers nothing at all.
          query_timeout: statementTimeoutMs + 1_000,
        }),
      }),
    });
    return {
      db,
      dialect: 'postgres',
      description: describeDatabaseUrl(databaseUrl),
      async withoutStatementTimeout(work) {
        // One connection: the migrator runs its statements one after another in one transaction.
        // `-c` sets the session's statement_timeout at connect, over any ALTER ROLE / DATABASE default.
        // Its introspection sees only the store's schema (current-schema-introspector.ts).
        const untimed = new Kysely<Database>({
          dialect: new CurrentSchemaPostgresDialect({
            pool: postgresPool(databaseUrl, options, { max: 1, serverOptions: ['-c statement_timeout=0'] }),
          }),
        });
        try {
          return await work(untimed);
        } finally {
          await untimed.destroy();
        }
      },
      destroy: () => db.destroy(),
    };
  }
  assertSqliteRuntime();
  const path = databaseUrl.startsWith('sqlite:') ? databaseUrl.slice('sqlite:'.length) : databaseUrl;
  const file = path === ':memory:' ? path : resolve(path);
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = openSqliteConnection(file, 0);
  const stopCheckpoints = file === ':memory:' ? async () => undefined : checkpointOffThread(sqlite, file);
  const db = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect(
      { database: withStatementCache(sqlite) },
      { sqlite, options: { busyTimeoutMs: options.sqliteBusyTimeoutMs } },
    ),
  });
  return {
    db,
    dialect: 'sqlite',
    description: `sqlite:${file}`,
    ...(file === ':memory:' ? {} : { sqliteFile: file }),
    withoutStatementTimeout: (work) => work(db),
    async destroy() {
      await stopCheckpoints();
      await db.destroy();
    },
  };
}

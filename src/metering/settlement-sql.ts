import { CompiledQuery } from 'kysely';
import type { Dialect } from '../store/database.js';
import type { UsageEventsTable } from './metering-schema.js';

/** usage_events' columns in the order the insert lists them. */
const USAGE_COLUMNS = [
  'id',
  'request_id',
  'user_id',
  'key_id',
  'requested_model',
  'model_id',
  'provider_id',
  'upstream_model',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'total_tokens',
  'tokens_estimated',
  'cost_nanos',
  'latency_ms',
  'time_to_first_token_ms',
  'tokens_per_second',
  'status',
  'error_code',
  'streamed',
  'client_aborted',
  'attempt_count',
  'attempts',
  'created_at',
  'surface',
  'app',
  'app_url',
] as const satisfies readonly (keyof UsageEventsTable)[];

/** Columns added after events could already be spilled to disk: a replayed older event lacks them. */
const ADDED_COLUMN_DEFAULTS: Partial<Record<keyof UsageEventsTable, number>> = { cache_write_tokens: 0 };

const LEDGER_COLUMNS = ['user_id', 'kind', 'amount_nanos', 'reference', 'description', 'created_at'] as const;

/**
 * The row counts an insert statement is written for: every count up to 16, then eight steps
 * between each power of two and the next (18, 20, …, 32, 36, …, 64, 72, …, 240, 256): 48 SQL
 * texts per table. A chunk of n rows runs the statement of the smallest count ≥ n (at most an
 * eighth more), its last row repeated to fill it: the conflict clause skips a repeated row (same
 * event id, same ledger reference) and returns only the rows written, so the result is the same.
 * Before (issue 31, branch `sqlite-settle`) every batch size was a statement of its own: batches
 * of 1 to 500 rows made up to a thousand SQL texts for a statement cache of 500, so under a
 * varying load most batches prepared one, and the cached statements (~150 KB of SQLite's heap
 * each at a hundred-odd rows) held tens of MB. Why padding, and by at most an eighth: splitting a
 * chunk into statements of powers of two instead costs tens of µs per statement more, and a
 * repeated record ~20 µs (docs/benchmarks.md).
 */
function statementRows(rows: number): number {
  if (rows <= 16) return rows;
  const step = 2 ** (Math.floor(Math.log2(rows - 1)) - 3);
  return Math.ceil(rows / step) * step;
}

/** The most rows one statement takes: 256 × 29 values stays under SQLite's 32,766 parameters. */
export const MOST_ROWS_PER_INSERT = 256;

/** `count` rows as chunks of at most MOST_ROWS_PER_INSERT, each with the row count of the statement it runs: 301 → 256 in 256, 45 in 48. */
export function rowChunks(count: number): { rows: number; statementRows: number }[] {
  const chunks: { rows: number; statementRows: number }[] = [];
  for (let left = count; left > 0; left -= MOST_ROWS_PER_INSERT) {
    const rows = Math.min(left, MOST_ROWS_PER_INSERT);
    chunks.push({ rows, statementRows: statementRows(rows) });
  }
  return chunks;
}

/** One ledger row of a usage charge, values in LEDGER_COLUMNS order. */
export type LedgerRowValues = [string, string, number, string, string, number];

/**
 * The settlement's statements as SQL written once per dialect and row count, run as compiled
 * queries. The usage writer runs the same five statements for every batch: building them with
 * the query builder (an immutable tree per statement, ~25 values a row) cost more CPU than
 * SQLite took to execute them, and left as much garbage. Everything else keeps the builder.
 */
export class SettlementSql {
  private readonly usageInserts = new Map<number, string>();
  private readonly ledgerInserts = new Map<number, string>();
  private readonly lockBalance: string;
  private readonly setBalance: string;
  private readonly addSpend: string;

  constructor(private readonly dialect: Dialect) {
    const [userParam, nowParam] = this.params(1, 2);
    this.lockBalance =
      `insert into credit_balances (user_id, balance_nanos, updated_at) values (${userParam}, 0, ${nowParam}) ` +
      'on conflict (user_id) do update set user_id = excluded.user_id returning balance_nanos';
    const [balance, updatedAt, user] = this.params(1, 3);
    this.setBalance = `update credit_balances set balance_nanos = ${balance}, updated_at = ${updatedAt} where user_id = ${user}`;
    // Each value has its own placeholder (SQLite's are positional). SET expressions read the row as it was.
    const [key, month, monthAmount, totalAmount, now] = this.params(1, 5);
    this.addSpend =
      'insert into key_spend (key_id, month, month_spend_nanos, total_spend_nanos, updated_at) ' +
      `values (${key}, ${month}, ${monthAmount}, ${totalAmount}, ${now}) on conflict (key_id) do update set ` +
      'month_spend_nanos = case when key_spend.month = excluded.month then key_spend.month_spend_nanos + excluded.month_spend_nanos ' +
      'when key_spend.month < excluded.month then excluded.month_spend_nanos else key_spend.month_spend_nanos end, ' +
      'month = case when key_spend.month < excluded.month then excluded.month else key_spend.month end, ' +
      'total_spend_nanos = key_spend.total_spend_nanos + excluded.total_spend_nanos, updated_at = excluded.updated_at';
  }

  /**
   * Inserts the events (a repeated id is skipped), one statement per chunk of `rowChunks`; each
   * returns the ids it wrote. No conflict target: on PostgreSQL the key is (id, created_at), the
   * partitioned table's (migration 0740), on SQLite id.
   */
  insertUsageEvents(events: UsageEventsTable[]): CompiledQuery<{ id: string }>[] {
    if (this.dialect === 'postgres') return this.insertUsageEventsFromJson(events);
    const queries: CompiledQuery<{ id: string }>[] = [];
    let start = 0;
    for (const { rows, statementRows } of rowChunks(events.length)) {
      const parameters: unknown[] = [];
      for (let row = 0; row < statementRows; row++) {
        // Past the chunk's rows, its last row again (skipped by the conflict clause).
        const event = events[start + Math.min(row, rows - 1)];
        for (const column of USAGE_COLUMNS) parameters.push(event[column] ?? ADDED_COLUMN_DEFAULTS[column] ?? null);
      }
      start += rows;
      queries.push(
        CompiledQuery.raw(
          this.cached(this.usageInserts, statementRows, (count) =>
            this.multiRowInsert('usage_events', USAGE_COLUMNS, count, ' on conflict do nothing returning id'),
          ),
          parameters,
        ) as CompiledQuery<{ id: string }>,
      );
    }
    return queries;
  }

  /**
   * PostgreSQL: each chunk's events as one JSON parameter, turned into rows by PostgreSQL
   * (`json_populate_recordset` over the table's own row type), one SQL text for any row count.
   * Issue 31 (branch `pg-redis-cpu`): a statement of n rows × 29 placeholders is parsed and
   * planned again on every batch (unnamed statements), and PostgreSQL spent 65–71 µs of CPU a row
   * on the 176-row statement against 33–37 µs this way; the gateway's own CPU a row dropped too
   * (one native `JSON.stringify` instead of 29 parameters to prepare and frame). The conflict
   * clause and what it returns are the same as the multi-row insert's.
   */
  private insertUsageEventsFromJson(events: UsageEventsTable[]): CompiledQuery<{ id: string }>[] {
    const queries: CompiledQuery<{ id: string }>[] = [];
    let start = 0;
    for (const { rows } of rowChunks(events.length)) {
      const chunk = start === 0 && rows === events.length ? events : events.slice(start, start + rows);
      start += rows;
      queries.push(CompiledQuery.raw(USAGE_FROM_JSON, [usageEventsJson(chunk)]) as CompiledQuery<{ id: string }>);
    }
    return queries;
  }

  /**
   * Inserts ledger rows (a repeated reference is skipped), given as their values one row after
   * another (LEDGER_COLUMNS order, as LedgerRowValues each), one statement per chunk of
   * `rowChunks`; each returns what it wrote.
   */
  insertLedgerValues(values: LedgerRowValues[number][]): CompiledQuery<{ id: number | string; reference: string }>[] {
    if (this.dialect === 'postgres') return this.insertLedgerFromArrays(values);
    const queries: CompiledQuery<{ id: number | string; reference: string }>[] = [];
    let start = 0;
    for (const { rows, statementRows } of rowChunks(values.length / LEDGER_COLUMNS.length)) {
      const end = start + rows * LEDGER_COLUMNS.length;
      let parameters = start === 0 && end === values.length ? values : values.slice(start, end);
      if (statementRows > rows) {
        // Filled with the chunk's last row (the same reference: skipped by the conflict clause).
        parameters = parameters.slice();
        const last = parameters.slice(-LEDGER_COLUMNS.length);
        for (let row = rows; row < statementRows; row++) parameters.push(...last);
      }
      queries.push(
        CompiledQuery.raw(
          this.cached(this.ledgerInserts, statementRows, (count) =>
            this.multiRowInsert(
              'credit_ledger',
              LEDGER_COLUMNS,
              count,
              ' on conflict (reference) do nothing returning id, reference',
            ),
          ),
          parameters,
        ) as CompiledQuery<{ id: number | string; reference: string }>,
      );
      start = end;
    }
    return queries;
  }

  /**
   * PostgreSQL: each chunk's rows as one array per column (`unnest`), one SQL text for any row
   * count, for the reason of `insertUsageEventsFromJson`; same conflict clause and returned rows.
   */
  private insertLedgerFromArrays(
    values: LedgerRowValues[number][],
  ): CompiledQuery<{ id: number | string; reference: string }>[] {
    const width = LEDGER_COLUMNS.length;
    const queries: CompiledQuery<{ id: number | string; reference: string }>[] = [];
    let start = 0;
    for (const { rows } of rowChunks(values.length / width)) {
      const columns: LedgerRowValues[number][][] = LEDGER_COLUMNS.map(() => []);
      for (let row = start; row < start + rows; row++)
        for (let column = 0; column < width; column++) columns[column]!.push(values[row * width + column]!);
      start += rows;
      queries.push(
        CompiledQuery.raw(LEDGER_FROM_ARRAYS, columns) as CompiledQuery<{ id: number | string; reference: string }>,
      );
    }
    return queries;
  }

  /** Makes sure the user's balance row exists and returns it, locked until commit (PostgreSQL; SQLite serializes writers). */
  lockBalanceRow(userId: string, now: number): CompiledQuery<{ balance_nanos: number | string }> {
    return CompiledQuery.raw(this.lockBalance, [userId, now]) as CompiledQuery<{ balance_nanos: number | string }>;
  }

  setBalanceRow(userId: string, balance: number, now: number): CompiledQuery {
    return CompiledQuery.raw(this.setBalance, [balance, now, userId]);
  }

  addKeySpend(keyId: string, month: string, amountNanos: number, now: number): CompiledQuery {
    return CompiledQuery.raw(this.addSpend, [keyId, month, amountNanos, amountNanos, now]);
  }

  private cached(texts: Map<number, string>, rows: number, build: (rows: number) => string): string {
    let text = texts.get(rows);
    if (text === undefined) texts.set(rows, (text = build(rows)));
    return text;
  }

  private multiRowInsert(table: string, columns: readonly string[], rows: number, tail: string): string {
    const tuples: string[] = [];
    for (let row = 0; row < rows; row++)
      tuples.push(`(${this.params(row * columns.length + 1, columns.length).join(', ')})`);
    return `insert into ${table} (${columns.join(', ')}) values ${tuples.join(', ')}${tail}`;
  }

  /** `count` placeholders numbered from `first` (PostgreSQL's $n; SQLite's are positional). */
  private params(first: number, count: number): string[] {
    return Array.from({ length: count }, (_, index) => (this.dialect === 'postgres' ? `$${first + index}` : '?'));
  }
}

/** The columns read from the JSON rows; a column added later is read with its default (an older spilled event lacks it). */
const USAGE_FROM_JSON =
  `insert into usage_events (${USAGE_COLUMNS.join(', ')}) select ` +
  USAGE_COLUMNS.map((column) =>
    ADDED_COLUMN_DEFAULTS[column] === undefined ? column : `coalesce(${column}, ${ADDED_COLUMN_DEFAULTS[column]})`,
  ).join(', ') +
  ' from json_populate_recordset(null::usage_events, $1::json) on conflict do nothing returning id';

const LEDGER_TYPES: Record<(typeof LEDGER_COLUMNS)[number], string> = {
  user_id: 'text',
  kind: 'text',
  amount_nanos: 'bigint',
  reference: 'text',
  description: 'text',
  created_at: 'bigint',
};
const LEDGER_FROM_ARRAYS =
  `insert into credit_ledger (${LEDGER_COLUMNS.join(', ')}) select * from unnest(` +
  LEDGER_COLUMNS.map((column, index) => `$${index + 1}::${LEDGER_TYPES[column]}[]`).join(', ') +
  ') on conflict (reference) do nothing returning id, reference';

/**
 * What PostgreSQL's JSON-to-text conversion refuses, as `JSON.stringify` writes it: a lone UTF-16
 * surrogate's escape, and `\\u0000` (text cannot hold a NUL). A text's own backslash before
 * "u0000" also matches; that only costs the careful pass below, which changes nothing there.
 */
const REFUSED_ESCAPE = /\\u(?:[dD][89a-fA-F]|0000)/;
const REFUSED_CHARACTER = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * The events as JSON for PostgreSQL. A client's model name can hold a lone surrogate or a NUL,
 * and an event holding either would fail its whole batch, with the other events in it, on every
 * retry (a spilled batch even after a restart): PostgreSQL's text takes neither. Such characters are
 * written as U+FFFD, as a lone surrogate was when events went as parameters (UTF-8 encoding).
 * The check is a scan of the text; only a batch that has one is serialised again.
 */
function usageEventsJson(events: readonly UsageEventsTable[]): string {
  const json = JSON.stringify(events);
  if (!REFUSED_ESCAPE.test(json)) return json;
  return JSON.stringify(events, (_key, value: unknown) =>
    typeof value === 'string' ? value.replace(REFUSED_CHARACTER, '\uFFFD') : value,
  );
}

/** The statements of each dialect (SQL texts only: no connection, no state beyond the texts). */
export const SETTLEMENT_SQL: Record<Dialect, SettlementSql> = {
  sqlite: new SettlementSql('sqlite'),
  postgres: new SettlementSql('postgres'),
};

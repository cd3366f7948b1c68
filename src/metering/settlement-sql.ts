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
   * Inserts the events (a repeated id is skipped); returns the ids written. No conflict target: on
   * PostgreSQL the key is (id, created_at), the partitioned table's (migration 0740), on SQLite id.
   */
  insertUsageEvents(events: UsageEventsTable[]): CompiledQuery<{ id: string }> {
    const parameters: unknown[] = [];
    for (const event of events)
      for (const column of USAGE_COLUMNS) parameters.push(event[column] ?? ADDED_COLUMN_DEFAULTS[column] ?? null);
    return CompiledQuery.raw(
      this.cached(this.usageInserts, events.length, (rows) =>
        this.multiRowInsert('usage_events', USAGE_COLUMNS, rows, ' on conflict do nothing returning id'),
      ),
      parameters,
    ) as CompiledQuery<{ id: string }>;
  }

  /**
   * Inserts ledger rows (a repeated reference is skipped), given as their values one row after
   * another (LEDGER_COLUMNS order, as LedgerRowValues each); returns what was written.
   */
  insertLedgerValues(values: LedgerRowValues[number][]): CompiledQuery<{ id: number | string; reference: string }> {
    return CompiledQuery.raw(
      this.cached(this.ledgerInserts, values.length / LEDGER_COLUMNS.length, (count) =>
        this.multiRowInsert(
          'credit_ledger',
          LEDGER_COLUMNS,
          count,
          ' on conflict (reference) do nothing returning id, reference',
        ),
      ),
      values,
    ) as CompiledQuery<{ id: number | string; reference: string }>;
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

/** The statements of each dialect (SQL texts only: no connection, no state beyond the texts). */
export const SETTLEMENT_SQL: Record<Dialect, SettlementSql> = {
  sqlite: new SettlementSql('sqlite'),
  postgres: new SettlementSql('postgres'),
};

import { sql, type RawBuilder } from 'kysely';
import type { Store } from '../store/database.js';
import type { LedgerKind } from '../credits/credits-schema.js';
import '../metering/metering-schema.js';

const DAY_MS = 86_400_000;
const USAGE_PREFIX = 'usage:';

/**
 * One line of a user's credit history: a ledger entry as it was written (grant, purchase, refund),
 * or the usage charges of one UTC day and one API key summed into one line.
 */
export interface CreditTransaction {
  id: string;
  type: LedgerKind;
  /** Signed nano-USD: credits added are positive, charges and refunds negative. */
  amountNanos: number;
  description: string;
  /** Epoch ms: the entry's time; for a usage line, its day's latest charge. */
  createdAt: number;
  /** Epoch ms of the UTC day. */
  day: number;
  /** Usage lines: the key charged (null when the charge names no stored usage event). */
  keyId: string | null;
  /** Usage lines: how many charges were summed; 1 for an entry. */
  entries: number;
  /** Entries: the ledger reference (`order:<id>`, `grant:…`); null for usage lines. */
  reference: string | null;
}

export interface TransactionFilter {
  type?: LedgerKind;
  /** Epoch ms, inclusive. */
  from?: number;
  /** Epoch ms, exclusive. */
  to?: number;
}

/**
 * The rows of the history as one SQL query, so paging and the total work on the combined list.
 * Usage charges are found with their usage event by the ledger reference `usage:<event id>` (how
 * metering writes them), which gives the key; a charge whose event is gone sums under key null.
 */
function historyQuery(userId: string, filter: TransactionFilter): RawBuilder<unknown> {
  // Constants inline, not bound: PostgreSQL must see the grouped expression and the selected one as the same.
  const day = (column: RawBuilder<unknown>) => sql`(${column} - (${column} % ${sql.raw(String(DAY_MS))}))`;
  const range = (column: RawBuilder<unknown>) =>
    sql.join(
      [
        sql`true`,
        ...(filter.from !== undefined ? [sql`${column} >= ${filter.from}`] : []),
        ...(filter.to !== undefined ? [sql`${column} < ${filter.to}`] : []),
      ],
      sql` and `,
    );
  const entryCreated = sql.ref('credit_ledger.created_at');
  const usageCreated = sql.ref('l.created_at');
  const entries = sql`
    select cast(credit_ledger.id as text) as id,
      credit_ledger.kind as kind, credit_ledger.amount_nanos as amount_nanos, credit_ledger.description as description,
      credit_ledger.created_at as created_at, ${day(entryCreated)} as day, cast(null as text) as key_id,
      1 as entries, credit_ledger.reference as reference
    from credit_ledger
    where credit_ledger.user_id = ${userId} and credit_ledger.kind <> 'usage' and ${range(entryCreated)}`;
  const usage = sql`
    select min(cast(l.id as text)) as id, 'usage' as kind, sum(l.amount_nanos) as amount_nanos,
      '' as description, max(l.created_at) as created_at, ${day(usageCreated)} as day, e.key_id as key_id,
      count(*) as entries, cast(null as text) as reference
    from credit_ledger l
    left join usage_events e on e.id = substr(l.reference, ${sql.raw(String(USAGE_PREFIX.length + 1))})
    where l.user_id = ${userId} and l.kind = 'usage' and ${range(usageCreated)}
    group by ${day(usageCreated)}, e.key_id`;
  if (filter.type === 'usage') return usage;
  if (filter.type !== undefined) return sql`${entries} and credit_ledger.kind = ${filter.type}`;
  return sql`${entries} union all ${usage}`;
}

/** A page of the user's credit history, newest first, and how many rows there are in all. */
export async function listCreditTransactions(
  store: Store,
  userId: string,
  filter: TransactionFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: CreditTransaction[]; total: number }> {
  const history = historyQuery(userId, filter);
  const [rows, count] = await Promise.all([
    sql<Record<string, unknown>>`
      select * from (${history}) history
      order by created_at desc, day desc, kind, coalesce(key_id, ''), id desc
      limit ${page.limit} offset ${page.offset}`.execute(store.db),
    sql<{ total: unknown }>`select count(*) as total from (${history}) history`.execute(store.db),
  ]);
  return {
    // PostgreSQL hands sums and counts of BIGINT back as strings.
    rows: rows.rows.map((row) => ({
      id: row.kind === 'usage' ? `usage-${formatDay(Number(row.day))}-${row.key_id ?? 'none'}` : `entry-${row.id}`,
      type: row.kind as LedgerKind,
      amountNanos: Number(row.amount_nanos),
      description: String(row.description ?? ''),
      createdAt: Number(row.created_at),
      day: Number(row.day),
      keyId: row.key_id === null || row.key_id === undefined ? null : String(row.key_id),
      entries: Number(row.entries),
      reference: row.reference === null || row.reference === undefined ? null : String(row.reference),
    })),
    total: Number(count.rows[0]?.total ?? 0),
  };
}

export function formatDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Names of the user's keys (revoked ones included: their charges stay in the history). */
export async function keyNames(store: Store, keyIds: string[]): Promise<Map<string, string>> {
  if (keyIds.length === 0) return new Map();
  const rows = await store.db.selectFrom('api_keys').select(['id', 'name']).where('id', 'in', keyIds).execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}

import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import './metering-schema.js';

const DAY_MS = 86_400_000;

/** Sums over a set of usage events; cost in nano-USD, the same figure the ledger charged. */
export interface UsageTotals {
  requests: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  totalTokens: number;
  costNanos: number;
}

export interface UsageReport {
  totals: UsageTotals;
  /** Every day of the range, oldest first, zeros included. */
  daily: Array<{ day: number } & UsageTotals>;
  byModel: Array<{ model: string } & UsageTotals>;
  byKey: Array<{ keyId: string; name: string | null } & UsageTotals>;
}

/** A user's usage between two UTC midnights (end exclusive). Four grouped queries, no row scan in JS. */
export async function usageReport(
  db: Kysely<Database>,
  userId: string,
  startMs: number,
  endMs: number,
): Promise<UsageReport> {
  const scope = db
    .selectFrom('usage_events')
    .where('usage_events.user_id', '=', userId)
    .where('usage_events.created_at', '>=', startMs)
    .where('usage_events.created_at', '<', endMs);
  const sums = sumsOf('usage_events');
  const dayExpression = sql<number>`usage_events.created_at / ${sql.lit(DAY_MS)}`;
  const modelExpression = sql<string>`coalesce(usage_events.model_id, usage_events.requested_model)`;
  const [totalRow, dayRows, modelRows, keyRows] = await Promise.all([
    scope.select(sums).executeTakeFirst(),
    scope
      .select([dayExpression.as('day'), ...sums])
      .groupBy(dayExpression)
      .execute(),
    scope
      .select([modelExpression.as('model'), ...sums])
      .groupBy(modelExpression)
      .execute(),
    // The range's rows with a key first (a materialized CTE), then grouped and named. Written as
    // one query, SQLite's planner (with statistics, at 1M rows) read a busy account's every row
    // through (user_id, key_id, …) for the `key_id is not null` range instead of the date range
    // through (user_id, created_at, id); the CTE keeps the date range (issue 31: this plan was
    // what kept the redundant (user_id, created_at) index, dropped by migration 0750).
    db
      .with(
        (cte) => cte('keyed').materialized(),
        () =>
          scope
            .where('usage_events.key_id', 'is not', null)
            .select([
              'usage_events.key_id',
              'usage_events.prompt_tokens',
              'usage_events.completion_tokens',
              'usage_events.cached_tokens',
              'usage_events.reasoning_tokens',
              'usage_events.total_tokens',
              'usage_events.cost_nanos',
            ]),
      )
      .selectFrom('keyed')
      .leftJoin('api_keys', 'api_keys.id', 'keyed.key_id')
      .select(['keyed.key_id as key_id', 'api_keys.name as name', ...sumsOf('keyed')])
      .groupBy(['keyed.key_id', 'api_keys.name'])
      .execute(),
  ]);

  const byDay = new Map(dayRows.map((row) => [Number(row.day), toTotals(row)]));
  const daily: UsageReport['daily'] = [];
  for (let day = startMs / DAY_MS; day < endMs / DAY_MS; day++)
    daily.push({ day: day * DAY_MS, ...(byDay.get(day) ?? toTotals({})) });
  const byCost = (a: UsageTotals, b: UsageTotals) => b.costNanos - a.costNanos || b.totalTokens - a.totalTokens;
  return {
    totals: toTotals(totalRow ?? {}),
    daily,
    byModel: modelRows.map((row) => ({ model: String(row.model), ...toTotals(row) })).sort(byCost),
    byKey: keyRows.map((row) => ({ keyId: String(row.key_id), name: row.name ?? null, ...toTotals(row) })).sort(byCost),
  };
}

/** The totals' sums over `table`'s rows (usage_events, or a CTE of its columns). */
function sumsOf(table: string) {
  const column = (name: string) => sql.ref(`${table}.${name}`);
  const sum = (name: string) => sql<number>`cast(coalesce(sum(${column(name)}), 0) as bigint)`.as(name);
  return [
    sql<number>`count(*)`.as('requests'),
    sum('prompt_tokens'),
    sum('completion_tokens'),
    sum('cached_tokens'),
    sum('reasoning_tokens'),
    sum('total_tokens'),
    sum('cost_nanos'),
  ];
}

function toTotals(row: Record<string, unknown>): UsageTotals {
  const number = (value: unknown) => (value === undefined || value === null ? 0 : Number(value));
  return {
    requests: number(row.requests),
    promptTokens: number(row.prompt_tokens),
    completionTokens: number(row.completion_tokens),
    cachedTokens: number(row.cached_tokens),
    reasoningTokens: number(row.reasoning_tokens),
    totalTokens: number(row.total_tokens),
    costNanos: number(row.cost_nanos),
  };
}

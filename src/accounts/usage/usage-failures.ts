import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { UsageReport } from '../../metering/usage-report.js';
import '../../metering/metering-schema.js';

const DAY_MS = 86_400_000;

/** Requests refused before any provider was tried (unknown model, no credits, rate limit, bad body). */
export interface UnsentGroup {
  day: number;
  model: string;
  keyId: string | null;
  requests: number;
}

/** Failed requests by status and error code, whether or not a provider was tried. */
export interface FailureGroup {
  status: number;
  errorCode: string | null;
  requests: number;
  /** The model ids (or the unknown ids asked for) these failures were about, most frequent first. */
  models: string[];
}

/**
 * The usage events of one user that must be shown apart from traffic: those never sent to a provider
 * (attempt_count 0), grouped like the usage report, and every failure (status >= 400) by its code.
 */
export async function usageFailures(
  db: Kysely<Database>,
  userId: string,
  startMs: number,
  endMs: number,
): Promise<{ unsent: UnsentGroup[]; failures: FailureGroup[] }> {
  const scope = db
    .selectFrom('usage_events')
    .where('usage_events.user_id', '=', userId)
    .where('usage_events.created_at', '>=', startMs)
    .where('usage_events.created_at', '<', endMs);
  const day = sql<number>`usage_events.created_at / ${sql.lit(DAY_MS)}`;
  const model = sql<string>`coalesce(usage_events.model_id, usage_events.requested_model)`;
  const count = sql<number>`count(*)`;
  const [unsentRows, failureRows] = await Promise.all([
    scope
      .where('usage_events.attempt_count', '=', 0)
      .select([day.as('day'), model.as('model'), 'usage_events.key_id as key_id', count.as('requests')])
      .groupBy([day, model, 'usage_events.key_id'])
      .execute(),
    scope
      .where('usage_events.status', '>=', 400)
      .select([
        'usage_events.status as status',
        'usage_events.error_code as error_code',
        model.as('model'),
        count.as('requests'),
      ])
      .groupBy(['usage_events.status', 'usage_events.error_code', model])
      .execute(),
  ]);
  const groups = new Map<string, FailureGroup & { byModel: Map<string, number> }>();
  for (const row of failureRows) {
    const key = `${row.status} ${row.error_code ?? ''}`;
    const group = groups.get(key) ?? {
      status: Number(row.status),
      errorCode: row.error_code ?? null,
      requests: 0,
      models: [],
      byModel: new Map<string, number>(),
    };
    group.requests += Number(row.requests);
    group.byModel.set(String(row.model), Number(row.requests));
    groups.set(key, group);
  }
  return {
    unsent: unsentRows.map((row) => ({
      day: Number(row.day) * DAY_MS,
      model: String(row.model),
      keyId: row.key_id ?? null,
      requests: Number(row.requests),
    })),
    failures: [...groups.values()]
      .map(({ byModel, ...group }) => ({
        ...group,
        models: [...byModel.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id),
      }))
      .sort((a, b) => b.requests - a.requests || a.status - b.status),
  };
}

/**
 * The usage report counting only requests that reached a model: requests never sent to a provider
 * are taken out of every request count, and a model row left with no request, token or cost (an
 * unknown id such as `nope/model`) is dropped. Tokens and cost stay as charged.
 */
export function withoutUnsent(report: UsageReport, unsent: UnsentGroup[]): UsageReport {
  const sum = (pick: (group: UnsentGroup) => string | number | null) => {
    const totals = new Map<string | number | null, number>();
    for (const group of unsent) totals.set(pick(group), (totals.get(pick(group)) ?? 0) + group.requests);
    return totals;
  };
  const byDay = sum((group) => group.day);
  const byModel = sum((group) => group.model);
  const byKey = sum((group) => group.keyId);
  const all = unsent.reduce((total, group) => total + group.requests, 0);
  return {
    totals: { ...report.totals, requests: report.totals.requests - all },
    daily: report.daily.map((day) => ({ ...day, requests: day.requests - (byDay.get(day.day) ?? 0) })),
    byModel: report.byModel
      .map((row) => ({ ...row, requests: row.requests - (byModel.get(row.model) ?? 0) }))
      .filter((row) => row.requests > 0 || row.totalTokens > 0 || row.costNanos > 0),
    byKey: report.byKey
      .map((row) => ({ ...row, requests: row.requests - (byKey.get(row.keyId) ?? 0) }))
      .filter((row) => row.requests > 0 || row.totalTokens > 0 || row.costNanos > 0),
  };
}

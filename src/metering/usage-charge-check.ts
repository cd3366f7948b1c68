import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import '../credits/credits-schema.js';
import './metering-schema.js';

/** Answered requests (usage events) against their charges, per user. */
export interface UsageChargeDrift {
  userId: string;
  /** Events with a cost and no charge at all (never charged, or charged with billing.require_credits off). */
  uncharged: number;
  unchargedNanos: number;
  /** Charges smaller than their event's cost (cut to what the balance had left: served partly free). */
  cut: number;
  cutNanos: number;
  /** Usage charges whose event is missing (a charge must be written with its event), among those no older than the oldest event kept. */
  orphanCharges: number;
}

/**
 * Every user's usage events with a cost checked against the ledger's usage charges (reference
 * `usage:<event id>`): what clients were answered against what was charged. Two aggregate queries
 * for reconcile, never on the request path.
 */
export async function usageChargeDrift(db: Kysely<Database>): Promise<UsageChargeDrift[]> {
  const events = await db
    .selectFrom('usage_events as event')
    .leftJoin('credit_ledger as entry', (join) =>
      join.on(sql`entry.reference`, '=', sql`'usage:' || event.id`).on('entry.kind', '=', 'usage'),
    )
    .select([
      'event.user_id as user_id',
      sql<number>`sum(case when entry.id is null then 1 else 0 end)`.as('uncharged'),
      sql<number>`cast(coalesce(sum(case when entry.id is null then event.cost_nanos else 0 end), 0) as bigint)`.as(
        'uncharged_nanos',
      ),
      sql<number>`sum(case when entry.id is not null and -entry.amount_nanos < event.cost_nanos then 1 else 0 end)`.as(
        'cut',
      ),
      sql<number>`cast(coalesce(sum(case when entry.id is not null and -entry.amount_nanos < event.cost_nanos then event.cost_nanos + entry.amount_nanos else 0 end), 0) as bigint)`.as(
        'cut_nanos',
      ),
    ])
    .where('event.cost_nanos', '>', 0)
    .where('event.user_id', 'is not', null)
    .groupBy('event.user_id')
    .execute();
  const orphans = await db
    .selectFrom('credit_ledger as entry')
    .leftJoin('usage_events as event', (join) => join.on(sql`'usage:' || event.id`, '=', sql`entry.reference`))
    .select(['entry.user_id as user_id', sql<number>`count(*)`.as('orphans')])
    .where('entry.kind', '=', 'usage')
    .where('event.id', 'is', null)
    // Retention (activity.retention_days) deletes old events and keeps their charges: a charge older
    // than every event left is one of those, not an orphan.
    .where('entry.created_at', '>=', (eb) =>
      eb.selectFrom('usage_events').select(sql<number>`coalesce(min(created_at), 0)`.as('oldest')),
    )
    .groupBy('entry.user_id')
    .execute();
  const byUser = new Map<string, UsageChargeDrift>();
  const of = (userId: string) => {
    let drift = byUser.get(userId);
    if (!drift) {
      drift = { userId, uncharged: 0, unchargedNanos: 0, cut: 0, cutNanos: 0, orphanCharges: 0 };
      byUser.set(userId, drift);
    }
    return drift;
  };
  for (const row of events) {
    if (Number(row.uncharged) === 0 && Number(row.cut) === 0) continue;
    Object.assign(of(row.user_id!), {
      uncharged: Number(row.uncharged),
      unchargedNanos: Number(row.uncharged_nanos),
      cut: Number(row.cut),
      cutNanos: Number(row.cut_nanos),
    });
  }
  for (const row of orphans) of(row.user_id).orphanCharges = Number(row.orphans);
  return [...byUser.values()].sort((a, b) => a.userId.localeCompare(b.userId));
}

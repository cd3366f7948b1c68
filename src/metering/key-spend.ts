import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../store/schema.js';
import './metering-schema.js';

export interface KeySpend {
  /** nano-USD spent in the current calendar month (UTC). */
  monthNanos: number;
  /** nano-USD spent over the key's life. */
  totalNanos: number;
}

/** YYYY-MM of a time, in UTC: the month monthly_quota counts in. */
export function monthOf(time: number): string {
  return new Date(time).toISOString().slice(0, 7);
}

/** Spend this month and in total per key (keys with no usage are absent: treat them as zero). */
export async function keySpend(db: Kysely<Database>, keyIds: string[], now: number): Promise<Map<string, KeySpend>> {
  const result = new Map<string, KeySpend>();
  if (keyIds.length === 0) return result;
  const month = monthOf(now);
  const rows = await db.selectFrom('key_spend').selectAll().where('key_id', 'in', keyIds).execute();
  for (const row of rows) {
    result.set(row.key_id, {
      monthNanos: row.month === month ? Number(row.month_spend_nanos) : 0,
      totalNanos: Number(row.total_spend_nanos),
    });
  }
  return result;
}

/**
 * Adds spend to keys inside the usage writer's transaction. Amounts are grouped by key and month
 * by the caller; a later month replaces the running month figure, an older one only adds to the
 * total (a batch that straddles midnight at a month's end).
 */
export async function addKeySpend(
  transaction: Transaction<Database>,
  keyId: string,
  month: string,
  amountNanos: number,
  now: number,
): Promise<void> {
  const existing = await transaction
    .selectFrom('key_spend')
    .select(['month', 'month_spend_nanos', 'total_spend_nanos'])
    .where('key_id', '=', keyId)
    .executeTakeFirst();
  if (!existing) {
    const inserted = await transaction
      .insertInto('key_spend')
      .values({ key_id: keyId, month, month_spend_nanos: amountNanos, total_spend_nanos: amountNanos, updated_at: now })
      .onConflict((conflict) => conflict.column('key_id').doNothing())
      .returning('key_id')
      .executeTakeFirst();
    if (inserted) return;
  }
  // One statement, so two instances adding at once both count.
  await transaction
    .updateTable('key_spend')
    .set((eb) => ({
      month_spend_nanos: eb
        .case()
        .when('month', '=', month)
        .then(eb('month_spend_nanos', '+', amountNanos))
        .when('month', '<', month)
        .then(eb.val(amountNanos))
        .else(eb.ref('month_spend_nanos'))
        .end(),
      month: eb.case().when('month', '<', month).then(eb.val(month)).else(eb.ref('month')).end(),
      total_spend_nanos: eb('total_spend_nanos', '+', amountNanos),
      updated_at: now,
    }))
    .where('key_id', '=', keyId)
    .execute();
}

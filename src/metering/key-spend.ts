import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import './metering-schema.js';

export interface KeySpend {
  /** nano-USD spent in the current calendar month (UTC). */
  monthNanos: number;
  /** nano-USD spent over the key's life. */
  totalNanos: number;
}

// The month of the last time asked about and where it starts and ends: every request asks a few
// times, and formatting a Date each time showed in profiles.
let cached = { start: 0, end: 0, month: '' };

/** YYYY-MM of a time, in UTC: the month monthly_quota counts in. */
export function monthOf(time: number): string {
  if (time >= cached.start && time < cached.end) return cached.month;
  const date = new Date(time);
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  const end = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  const month = date.toISOString().slice(0, 7);
  if (Number.isFinite(start)) cached = { start, end, month };
  return month;
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

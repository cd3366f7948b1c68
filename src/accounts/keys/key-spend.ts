import type { Store } from '../../store/database.js';

/** What a key has spent, in micro-USD. */
export interface KeySpend {
  thisMonthMicros: number;
  totalMicros: number;
}

/**
 * Spend per key for the key records of the account API (this calendar month, UTC, and in total).
 *
 * PLACEHOLDER until metering lands: every key reports 0. The metering feature replaces this
 * body with a read of its usage data; callers pass every key of a page at once so that read
 * can be one query.
 */
export async function keySpend(_store: Store, keyIds: readonly string[], _now: number): Promise<Map<string, KeySpend>> {
  return new Map(keyIds.map((keyId) => [keyId, { thisMonthMicros: 0, totalMicros: 0 }]));
}

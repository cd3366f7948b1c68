import type { Store } from '../store/database.js';
import { keySpend as meteredKeySpend } from '../metering/key-spend.js';
import { nanosToUsdNumber } from '../metering/money.js';

/** What a key has spent, in USD for display (the exact figures are nano-USD in metering). */
export interface KeySpendView {
  thisMonthUsd: number;
  totalUsd: number;
}

/**
 * Spend per key for the key records of the account API (this calendar month, UTC, and in total),
 * read from metering's per-key counters in one query for a whole page of keys.
 */
export async function keySpendViews(
  store: Store,
  keyIds: readonly string[],
  now: number,
): Promise<Map<string, KeySpendView>> {
  const spent = await meteredKeySpend(store.db, [...keyIds], now);
  return new Map(
    keyIds.map((keyId) => {
      const spend = spent.get(keyId);
      return [
        keyId,
        { thisMonthUsd: nanosToUsdNumber(spend?.monthNanos ?? 0), totalUsd: nanosToUsdNumber(spend?.totalNanos ?? 0) },
      ];
    }),
  );
}

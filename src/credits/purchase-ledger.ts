import type { Store } from '../store/database.js';
import type { Clock } from '../shared/clock.js';
import { applyLedgerEntry, getBalance } from './credit-ledger.js';
import type { CreditLedger } from '../billing/credit-ledger.js';

/** Billing's view of the metering ledger: purchases and refunds are ledger entries with unique references. */
export function createMeteringLedger(store: Store, clock: Clock): CreditLedger {
  return {
    async creditPurchase(userId, nanos, reference) {
      const result = await applyLedgerEntry(
        store,
        { userId, kind: 'purchase', amount: nanos, reference, description: 'credit purchase' },
        clock.now(),
      );
      return result.applied;
    },
    async debitRefund(userId, nanos, reference) {
      // The ledger never takes the balance below zero: credits already spent stay spent.
      const result = await applyLedgerEntry(
        store,
        { userId, kind: 'refund', amount: -nanos, reference, description: 'purchase refunded' },
        clock.now(),
      );
      return result.applied;
    },
    balanceNanos: (userId) => getBalance(store, userId),
  };
}

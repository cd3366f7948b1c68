import type { Store } from '../store/database.js';
import type { Clock } from '../shared/clock.js';
import { applyLedgerEntry, getBalance } from './credit-ledger.js';

/**
 * What billing needs from the credit ledger: purchases and refunds. Entries carry a unique reference,
 * so crediting the same order twice is a no-op: that is what makes "credited exactly once" hold
 * however often, late or concurrently a payment is confirmed.
 */
export interface PurchaseLedger {
  /** Adds a purchase; false when an entry with this reference already exists. */
  creditPurchase(userId: string, nanos: number, reference: string): Promise<boolean>;
  /** Takes a refunded purchase back (never below a zero balance); false when already applied. */
  debitRefund(userId: string, nanos: number, reference: string): Promise<boolean>;
  /** The user's balance in nano-USD (the project’s money unit). */
  balanceNanos(userId: string): Promise<number>;
}

/** Purchases and refunds as credit-ledger entries with unique references. */
export function createPurchaseLedger(store: Store, clock: Clock): PurchaseLedger {
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

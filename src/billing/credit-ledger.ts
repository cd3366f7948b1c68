/**
 * What billing needs from the credit ledger (metering owns it). Entries carry a unique reference,
 * so crediting the same order twice is a no-op: that is what makes "credited exactly once" hold
 * however often, late or concurrently a payment is confirmed.
 */
export interface CreditLedger {
  /** Adds a purchase; false when an entry with this reference already exists. */
  creditPurchase(userId: string, nanos: number, reference: string): Promise<boolean>;
  /** Takes a refunded purchase back (never below a zero balance); false when already applied. */
  debitRefund(userId: string, nanos: number, reference: string): Promise<boolean>;
  /** The user's balance in nano-USD (the project’s money unit). */
  balanceNanos(userId: string): Promise<number>;
}

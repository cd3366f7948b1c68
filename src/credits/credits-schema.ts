import type { Generated } from 'kysely';

/** Prepaid credits: an append-only ledger and one running balance per user. */
/** `adjustment`: credits an administrator took away (negative), with the reason as description. */
export type LedgerKind = 'grant' | 'purchase' | 'usage' | 'refund' | 'adjustment';

export interface CreditLedgerTable {
  id: Generated<number>;
  user_id: string;
  kind: string;
  /** Signed: credits added are positive, usage charges negative. */
  amount_nanos: number;
  /** Unique: re-applying an entry with the same reference changes nothing. */
  reference: string;
  description: string;
  created_at: number;
}

interface CreditBalancesTable {
  user_id: string;
  balance_nanos: number;
  /** Sum of the open store holds (credit_holds): used only while Redis is down. */
  held_nanos: Generated<number>;
  updated_at: number;
}

/** A hold taken in the store while Redis was down; released by the request's settlement or at expiry. */
interface CreditHoldsTable {
  id: string;
  user_id: string;
  amount_nanos: number;
  expires_at: number;
  created_at: number;
}

declare module '../store/schema.js' {
  interface Database {
    credit_ledger: CreditLedgerTable;
    credit_balances: CreditBalancesTable;
    credit_holds: CreditHoldsTable;
  }
}

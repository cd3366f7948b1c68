/** The metering feature's tables, merged into the store's Database type. Money: integer nano-USD. */
import type { Generated } from 'kysely';

export interface UsageEventsTable {
  /** Our own id (also the ledger reference `usage:<id>`); the request id may come from a client. */
  id: string;
  request_id: string;
  user_id: string | null;
  key_id: string | null;
  requested_model: string;
  model_id: string | null;
  provider_id: string | null;
  upstream_model: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  total_tokens: number;
  /** 1 when the provider reported no usage and the tokens are our estimate. */
  tokens_estimated: number;
  cost_nanos: number;
  latency_ms: number;
  time_to_first_token_ms: number | null;
  tokens_per_second: number | null;
  status: number;
  error_code: string | null;
  streamed: number;
  client_aborted: number;
  attempt_count: number;
  /** JSON array of AttemptRecord. */
  attempts: string;
  created_at: number;
}

export type LedgerKind = 'grant' | 'purchase' | 'usage' | 'refund';

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

export interface CreditBalancesTable {
  user_id: string;
  balance_nanos: number;
  updated_at: number;
}

/** Running spend per key, updated with each usage batch, so limits need no aggregate query. */
export interface KeySpendTable {
  key_id: string;
  /** The calendar month (UTC) month_spend_nanos belongs to: YYYY-MM. */
  month: string;
  month_spend_nanos: number;
  total_spend_nanos: number;
  updated_at: number;
}

declare module '../store/schema.js' {
  interface Database {
    usage_events: UsageEventsTable;
    credit_ledger: CreditLedgerTable;
    credit_balances: CreditBalancesTable;
    key_spend: KeySpendTable;
  }
}

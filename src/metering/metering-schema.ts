/** The metering feature's tables, merged into the store's Database type. Money: integer nano-USD. */
// Metering charges usage to the credit ledger: its tables come with it.
import '../credits/credits-schema.js';

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
  /** Optional here and below: an event spilled to disk before migration 0700 lacks the column. */
  cache_write_tokens?: number;
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
  /** The API surface that took the request: chat, responses, messages, embeddings, … (null before migration 0700). */
  surface?: string | null;
  /** The client app as it named itself (X-Title), and its URL (HTTP-Referer), as OpenRouter reads them. */
  app?: string | null;
  app_url?: string | null;
}

/** Running spend per key, updated with each usage batch, so limits need no aggregate query. */
interface KeySpendTable {
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
    key_spend: KeySpendTable;
  }
}

/**
 * Shapes of responses the gateway's OpenAPI document does not describe yet (those routes declare
 * no response schema). Paths and parameters still come from schema.d.ts; only these bodies are
 * written by hand, from what the routes return (docs/metering.md, docs/billing.md, docs/catalog.md).
 */

export interface User {
  id: string;
  email: string;
  name: string;
}

export interface Balance {
  currency: string;
  balance: number;
  balance_nanos: number;
  held: number;
  held_nanos: number;
  available: number;
  available_nanos: number;
}

interface UsageFigures {
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  total_tokens: number;
  cost: number;
  cost_nanos: number;
}

export interface Usage {
  start_date: string;
  end_date: string;
  currency: string;
  totals: UsageFigures;
  daily: (UsageFigures & { date: string })[];
  by_model: (UsageFigures & { model: string })[];
  by_key: (UsageFigures & { key_id: string; name: string })[];
  /** Failed requests by status and error code; those refused before any provider are not in `requests`. */
  failures: UsageFailure[];
}

export interface UsageFailure {
  status: number;
  error_code: string | null;
  requests: number;
  models: string[];
}

interface Order {
  order_id: string;
  status: 'pending' | 'paid' | 'failed' | 'expired' | 'canceled' | 'refunded';
  amount: number;
  fee: number;
  total: number;
  currency: string;
  credits: number;
  payment_provider: string;
  checkout_url: string | null;
  created_at: string;
  paid_at: string | null;
  closed_at: string | null;
}

export interface Billing {
  plan: string;
  credit_balance: number;
  currency: string;
  platform_fee_rate: number;
  payment_provider: string;
  payment_methods: { id: string; brand?: string; last4?: string }[];
  invoices: (Order & { documents: ('invoice' | 'receipt')[] })[];
}

export interface OrderPage {
  data: Order[];
  total: number;
  limit: number;
  offset: number;
}

export interface DocumentLink {
  order_id: string;
  type: 'invoice' | 'receipt';
  document_number: string;
  url: string;
  expires_at: string;
}

/** Prices are decimal strings, USD per million tokens (per request/search: USD each). */
interface Pricing {
  prompt: string | null;
  completion: string | null;
  cache_read: string | null;
  cache_write: string | null;
  per_request: string | null;
  per_search: string | null;
}

interface Percentiles {
  p50: number | null;
  p95: number | null;
}

interface EndpointStats {
  requests: number;
  success_rate: number | null;
  uptime: number | null;
  latency_ms: Percentiles;
  ttft_ms: Percentiles;
  tokens_per_second: number | null;
}

interface CatalogEndpoint {
  provider: string;
  provider_name: string;
  upstream_model: string;
  pricing: Pricing;
  context_length: number | null;
  max_output_tokens: number | null;
  status: string;
  stats_24h?: EndpointStats;
}

export interface CatalogModel {
  id: string;
  name: string;
  author: string;
  description: string;
  context_length: number | null;
  max_output_tokens: number | null;
  pricing: Pricing;
  capabilities: string[];
  tags: string[];
  input_modalities: string[];
  output_modalities: string[];
  created: string | null;
  knowledge_cutoff: string | null;
  links: { label: string; url: string }[];
  aliases: string[];
  routable: boolean;
  endpoints: CatalogEndpoint[];
}

export interface CatalogPage {
  data: CatalogModel[];
  total: number;
  limit: number;
  offset: number;
}

export interface FilterValue {
  value: string;
  count: number;
}

export interface CatalogFilters {
  authors: FilterValue[];
  providers: FilterValue[];
  input_modalities: FilterValue[];
  output_modalities: FilterValue[];
  capabilities: FilterValue[];
  tags: FilterValue[];
  sorts: string[];
}

export interface ProviderSummary {
  id: string;
  name: string;
  model_count: number;
  input_modalities: string[];
  output_modalities: string[];
  status: string;
}

export interface ProviderDetail extends ProviderSummary {
  type: string;
  policies: Record<string, unknown>;
  models: { id: string; name: string; upstream_model: string; pricing: Pricing; context_length: number | null }[];
  throughput_24h: {
    requests: number;
    prompt_tokens: number;
    completion_tokens: number;
    tokens_per_second: number | null;
  };
}

interface StatsFigures {
  requests: number;
  successes: number;
  success_rate: number | null;
  uptime: number | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  latency_ms: Percentiles;
  ttft_ms: Percentiles;
  tokens_per_second: number | null;
}

export interface ProviderStats {
  provider: string;
  window: '1h' | '24h' | '7d' | '30d';
  /** From the window's uptime: down < 50 %, degraded < 95 % (docs/catalog.md). */
  status: 'active' | 'degraded' | 'down' | 'unknown';
  from: string;
  to: string;
  bucket_seconds: number;
  totals: StatsFigures;
  buckets: (StatsFigures & { start: string })[];
  models: (StatsFigures & { model_id: string })[];
}

interface LeaderboardEntry {
  rank: number;
  model_id: string;
  name: string;
  author: string;
  tokens: number;
  prompt_tokens: number;
  completion_tokens: number;
  requests: number;
  previous_tokens: number;
  change: number | null;
}

export interface Leaderboard {
  window: string;
  from: string;
  to: string;
  data: LeaderboardEntry[];
}

export interface RankingChart {
  metric: 'tokens' | 'requests' | 'users';
  window: string;
  bucket_seconds: number;
  series: {
    model_id: string;
    name: string;
    author: string;
    total: number;
    /** One point per bucket of the window: `start` its ISO time, `date` its UTC day. */
    points: { start: string; date: string; value: number }[];
  }[];
}

interface BenchmarkScore {
  model_id: string;
  name: string;
  author: string;
  score: number;
  source: string;
  date: string;
}

export interface Benchmarks {
  data: {
    category: string;
    benchmarks: {
      id: string;
      name: string;
      category: string;
      unit: string;
      description: string;
      scores: BenchmarkScore[];
    }[];
  }[];
}

interface SpeedEntry {
  model_id: string;
  name: string;
  author: string;
  tokens_per_second: number | null;
  ttft_ms: Percentiles;
  latency_ms: Percentiles;
  requests: number;
}

export interface Speed {
  window: string;
  min_requests: number;
  by_throughput: SpeedEntry[];
  by_latency: SpeedEntry[];
}

/** Rollup tables of the usage statistics (migration 0400). */

/** Sums over one bucket of one model at one provider. Histogram columns are listed in latency-histogram.ts. */
interface UsageRollupTable {
  bucket_start: number;
  model_id: string;
  provider_id: string;
  requests: number;
  successes: number;
  upstream_failures: number;
  prompt_tokens: number;
  completion_tokens: number;
  latency_ms_sum: number;
  /** Time spent generating (latency minus time to first token) over successful requests with output. */
  generation_ms_sum: number;
  /** Completion tokens of those same requests: throughput = generation tokens / generation time. */
  generation_tokens: number;
  [histogramColumn: `lh_${string}` | `th_${string}`]: number;
}

interface UsageModelUsersDayTable {
  day_start: number;
  model_id: string;
  user_id: string;
}

/** Distinct users per model per day, counted as usage_model_users_day gains rows (migration 0401). */
interface UsageModelUsersDayCountTable {
  day_start: number;
  model_id: string;
  users: number;
}

export const ROLLUP_TABLES = {
  minute: 'usage_rollup_minute',
  hour: 'usage_rollup_hour',
  day: 'usage_rollup_day',
} as const;
export type Granularity = keyof typeof ROLLUP_TABLES;
export const GRANULARITY_MS: Record<Granularity, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

export const SUM_COLUMNS = [
  'requests',
  'successes',
  'upstream_failures',
  'prompt_tokens',
  'completion_tokens',
  'latency_ms_sum',
  'generation_ms_sum',
  'generation_tokens',
] as const;
export type SumColumn = (typeof SUM_COLUMNS)[number];

declare module '../store/schema.js' {
  interface Database {
    usage_rollup_minute: UsageRollupTable;
    usage_rollup_hour: UsageRollupTable;
    usage_rollup_day: UsageRollupTable;
    usage_model_users_day: UsageModelUsersDayTable;
    usage_model_users_day_count: UsageModelUsersDayCountTable;
  }
}

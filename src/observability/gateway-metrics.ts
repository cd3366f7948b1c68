import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { CompletionObserver, CompletionOutcome } from '../routing/completion-outcome.js';
import { TalliedCounter } from './tallied-counter.js';
import { TalliedHistogram } from './tallied-histogram.js';

/** What one usage record adds to the token and cost counters (the metering's own figures). */
export interface MeteredUsage {
  model_id: string | null;
  provider_id: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  cost_nanos: number;
}

/** A circuit breaker's state for the breaker gauge. */
export interface BreakerSample {
  providerId: string;
  upstreamModel: string;
  state: 'closed' | 'open' | 'half_open';
}

/** Read on every scrape, never on the request path. */
export interface MetricsSources {
  breakers?: () => Promise<BreakerSample[]>;
  /** Usage records waiting to be written. */
  usageBacklog?: () => number;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const BREAKER_VALUE = { closed: 0, open: 1, half_open: 2 } as const;
/** Admission refusals by their error code; a fixed set keeps the label's values bounded. */
const REFUSAL_CODES = new Set([
  'requests_per_minute_exceeded',
  'tokens_per_minute_exceeded',
  'insufficient_credits',
  'quota_exceeded',
  'credit_limit_exceeded',
]);
/** Used where a label has no value (no model was reached, no route matched). */
const NONE = 'none';

/**
 * The gateway's Prometheus metrics, in a registry of its own (no prom-client globals, so tests
 * and several apps in one process do not share counters). Label values come from the config
 * (model and provider ids, route patterns) or small fixed sets, never from client text, so the
 * number of series stays bounded.
 */
export class GatewayMetrics implements CompletionObserver {
  readonly registry = new Registry();
  private readonly httpRequests: TalliedCounter<'route' | 'method' | 'status'>;
  private readonly httpDuration: TalliedHistogram<'route' | 'method'>;
  private readonly chatRequests: TalliedCounter<'model' | 'provider' | 'status' | 'streamed'>;
  private readonly chatDuration: TalliedHistogram<'model' | 'provider'>;
  private readonly timeToFirstToken: TalliedHistogram<'model' | 'provider'>;
  private readonly upstreamAttempts: TalliedCounter<'provider' | 'status'>;
  private readonly upstreamDuration: TalliedHistogram<'provider'>;
  private readonly tokens: TalliedCounter<'model' | 'provider' | 'type'>;
  private readonly cost: TalliedCounter<'model' | 'provider'>;
  private readonly refusals: Counter<'reason'>;
  private sources: MetricsSources = {};

  constructor(options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.httpRequests = new TalliedCounter({
      name: 'gateway_http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status code.',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.httpDuration = new TalliedHistogram({
      name: 'gateway_http_request_duration_seconds',
      help: 'Time from the request arriving to the response ending (whole stream included).',
      labelNames: ['route', 'method'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.chatRequests = new TalliedCounter({
      name: 'gateway_chat_requests_total',
      help: 'Chat completion requests, by the model and provider that served them (none: refused before routing) and status.',
      labelNames: ['model', 'provider', 'status', 'streamed'],
      registers,
    });
    this.chatDuration = new TalliedHistogram({
      name: 'gateway_chat_request_duration_seconds',
      help: 'Chat completion latency, first byte of the request to the last of the answer.',
      labelNames: ['model', 'provider'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.timeToFirstToken = new TalliedHistogram({
      name: 'gateway_chat_time_to_first_token_seconds',
      help: 'Time to the first generated token (streams) or to the whole answer (non-streamed).',
      labelNames: ['model', 'provider'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.upstreamAttempts = new TalliedCounter({
      name: 'gateway_upstream_attempts_total',
      help: 'Calls to upstream providers, fallbacks and retries included, by upstream status (0: no answer).',
      labelNames: ['provider', 'status'],
      registers,
    });
    this.upstreamDuration = new TalliedHistogram({
      name: 'gateway_upstream_latency_seconds',
      help: 'Time for one upstream attempt to answer (response headers for streams, the whole body otherwise).',
      labelNames: ['provider'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    // Tallied: every metered request adds to two to five of these (prom-client's inc ~0.5 µs each).
    this.tokens = new TalliedCounter({
      name: 'gateway_tokens_total',
      help: 'Tokens metered, by model, provider and type (prompt, completion, cached, reasoning).',
      labelNames: ['model', 'provider', 'type'],
      registers,
    });
    this.cost = new TalliedCounter({
      name: 'gateway_cost_nano_usd_total',
      help: 'Cost metered, in nano-USD (1e-9 USD), by model and provider.',
      labelNames: ['model', 'provider'],
      registers,
    });
    this.refusals = new Counter({
      name: 'gateway_refusals_total',
      help: 'Requests refused before reaching a provider: rate limits, key quotas, credit balance.',
      labelNames: ['reason'],
      registers,
    });
    const sources = () => this.sources;
    new Gauge({
      name: 'gateway_circuit_breaker_state',
      help: 'Circuit breaker per upstream endpoint: 0 closed, 1 open, 2 half-open.',
      labelNames: ['provider', 'upstream_model'],
      registers,
      async collect() {
        this.reset();
        const samples =
          (await sources()
            .breakers?.()
            .catch(() => [])) ?? [];
        for (const sample of samples)
          this.set({ provider: sample.providerId, upstream_model: sample.upstreamModel }, BREAKER_VALUE[sample.state]);
      },
    });
    new Gauge({
      name: 'gateway_usage_backlog',
      help: 'Usage records waiting to be written to the store.',
      registers,
      collect() {
        this.set(sources().usageBacklog?.() ?? 0);
      },
    });
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /** Where scrape-time gauges read from; set once the services exist. */
  setSources(sources: MetricsSources): void {
    this.sources = { ...this.sources, ...sources };
  }

  observeHttp(route: string | undefined, method: string, status: number, seconds: number): void {
    const routeLabel = route ?? NONE;
    this.httpRequests.inc(routeLabel, method, String(status));
    this.httpDuration.observe(seconds, routeLabel, method);
  }

  onCompletion(outcome: CompletionOutcome): void {
    const model = outcome.modelId ?? NONE;
    const provider = outcome.providerId ?? NONE;
    this.chatRequests.inc(model, provider, String(outcome.status), String(outcome.streamed));
    if (outcome.attempts.length > 0) {
      this.chatDuration.observe(outcome.latencyMs / 1000, model, provider);
      if (outcome.timeToFirstTokenMs !== null)
        this.timeToFirstToken.observe(outcome.timeToFirstTokenMs / 1000, model, provider);
    }
    for (const attempt of outcome.attempts) {
      this.upstreamAttempts.inc(attempt.providerId, String(attempt.status));
      this.upstreamDuration.observe(attempt.latencyMs / 1000, attempt.providerId);
    }
    if (outcome.errorCode && outcome.attempts.length === 0 && REFUSAL_CODES.has(outcome.errorCode))
      this.refusals.inc({ reason: outcome.errorCode });
  }

  /** Counts one usage record exactly as the metering wrote it, so the counters match the store. */
  onUsage(usage: MeteredUsage): void {
    const model = usage.model_id ?? NONE;
    const provider = usage.provider_id ?? NONE;
    if (usage.prompt_tokens) this.tokens.add(usage.prompt_tokens, model, provider, 'prompt');
    if (usage.completion_tokens) this.tokens.add(usage.completion_tokens, model, provider, 'completion');
    if (usage.cached_tokens) this.tokens.add(usage.cached_tokens, model, provider, 'cached');
    if (usage.reasoning_tokens) this.tokens.add(usage.reasoning_tokens, model, provider, 'reasoning');
    if (usage.cost_nanos) this.cost.add(usage.cost_nanos, model, provider);
  }

  /** The text exposition format, for a scrape. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

import type { Pricing } from '../config/gateway-config.js';
import type { CompletionOutcome, PricedOutcome } from '../routing/completion-outcome.js';
import { computeCostParts, picoToNanos, type TokenCounts } from './compute-cost.js';
import { estimateOutputTokens } from './estimate-tokens.js';
import type { UsageEventsTable } from './metering-schema.js';

export interface UsageEventInput {
  id: string;
  outcome: CompletionOutcome;
  /** The serving endpoint's prices; null when no endpoint was reached. */
  pricing: Pricing | null;
  /** The prompt estimate, computed only when needed (no provider usage). */
  estimatePrompt: () => number;
}

/**
 * The usage event of one finished request (pure). Tokens are the provider's figures; only when
 * it sent none and something was generated do we estimate (prompt with the tokenizer, output
 * from the characters the client received). A request that failed before producing anything
 * costs nothing; one that produced output (a client that left mid-stream, a broken stream)
 * pays for what was generated. The per-request price applies to successful requests only.
 */
export function buildUsageEvent(input: UsageEventInput): UsageEventsTable {
  const { outcome } = input;
  // An answer that already told the client its cost is charged exactly that (priced once).
  const priced = outcome.priced ?? priceOutcome(input);
  const tokens = { counts: priced, estimated: priced.estimated };
  const cost = priced.costNanos;
  const generationMs =
    outcome.timeToFirstTokenMs !== null && outcome.streamed
      ? outcome.latencyMs - outcome.timeToFirstTokenMs
      : outcome.latencyMs;
  return {
    id: input.id,
    request_id: outcome.requestId,
    user_id: outcome.userId,
    key_id: outcome.keyId,
    requested_model: outcome.requestedModel,
    model_id: outcome.modelId,
    provider_id: outcome.providerId,
    upstream_model: outcome.upstreamModel,
    prompt_tokens: tokens.counts.promptTokens,
    completion_tokens: tokens.counts.completionTokens,
    cached_tokens: tokens.counts.cachedTokens,
    reasoning_tokens: tokens.counts.reasoningTokens,
    total_tokens: tokens.counts.promptTokens + tokens.counts.completionTokens,
    tokens_estimated: tokens.estimated ? 1 : 0,
    cost_nanos: cost,
    latency_ms: Math.max(0, Math.round(outcome.latencyMs)),
    time_to_first_token_ms: outcome.timeToFirstTokenMs === null ? null : Math.round(outcome.timeToFirstTokenMs),
    tokens_per_second:
      tokens.counts.completionTokens > 0 && generationMs > 0
        ? Math.round((tokens.counts.completionTokens * 1000 * 100) / generationMs) / 100
        : null,
    status: outcome.status,
    error_code: outcome.errorCode,
    streamed: outcome.streamed ? 1 : 0,
    client_aborted: outcome.clientAborted ? 1 : 0,
    attempt_count: outcome.attempts.length,
    attempts: JSON.stringify(outcome.attempts),
    created_at: outcome.startedAt,
  };
}

/**
 * The tokens and cost of a request as it stands (pure): the one pricing of every charge, used by
 * settlement and by answers that report their cost (usage.cost).
 */
export function priceOutcome(input: Omit<UsageEventInput, 'id'>): PricedOutcome {
  const { outcome } = input;
  const tokens = tokensOf(input);
  const succeeded = outcome.status < 400;
  const none = { promptNanos: 0, cacheReadNanos: 0, cacheWriteNanos: 0, completionNanos: 0, requestNanos: 0 };
  if (!input.pricing) return { ...tokens.counts, estimated: tokens.estimated, costNanos: 0, parts: none };
  const pico = computeCostParts(tokens.counts, input.pricing, { perRequest: succeeded && outcome.modelId !== null });
  return {
    ...tokens.counts,
    estimated: tokens.estimated,
    costNanos: picoToNanos(pico.prompt + pico.cacheRead + pico.cacheWrite + pico.completion + pico.request),
    parts: {
      promptNanos: picoToNanos(pico.prompt),
      cacheReadNanos: picoToNanos(pico.cacheRead),
      cacheWriteNanos: picoToNanos(pico.cacheWrite),
      completionNanos: picoToNanos(pico.completion),
      requestNanos: picoToNanos(pico.request),
    },
  };
}

function tokensOf(input: Omit<UsageEventInput, 'id'>): { counts: TokenCounts; estimated: boolean } {
  const { usage, outputCharacters, status, modelId } = input.outcome;
  if (usage) {
    return {
      counts: {
        promptTokens: count(usage.prompt_tokens),
        completionTokens: count(usage.completion_tokens),
        cachedTokens: count(usage.prompt_tokens_details?.cached_tokens),
        cacheWriteTokens: count(usage.prompt_tokens_details?.cache_write_tokens),
        reasoningTokens: count(usage.completion_tokens_details?.reasoning_tokens),
      },
      estimated: false,
    };
  }
  const generated = outputCharacters > 0 || (status < 400 && modelId !== null);
  if (!generated)
    return {
      counts: { promptTokens: 0, completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
      estimated: false,
    };
  return {
    counts: {
      promptTokens: input.estimatePrompt(),
      completionTokens: estimateOutputTokens(outputCharacters),
      cachedTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    },
    estimated: true,
  };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

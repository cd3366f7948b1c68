import type { EndpointConfig } from '../config/gateway-config.js';
import type { ApiKeyRecord } from '../routing/api-key-record.js';
import type { ChatCompletionRequest } from '../shared/openai-types.js';
import { InsufficientCreditsError, PermissionDeniedError, RateLimitError } from '../shared/errors.js';
import { maximumCostNanos } from './compute-cost.js';
import { microsToNanos } from './money.js';
import type { RateCheck, KeyLimits } from './rate-limit-window.js';
import type { Hold, HoldOutcome, LocalWindowSettlement } from './hot-counters.js';

/** What admission decided for one request; the completion observer settles it. */
export interface MeteredRequest {
  /** Kept so the prompt can be estimated when a provider reports no usage. */
  request: ChatCompletionRequest;
  /** The prompt's size for admission (estimatePromptSize), computed once when needed. */
  promptSize: number | null;
  /** Tokens charged to the tpm bucket up front (corrected to the actual total afterwards). */
  reservedTokens: number;
  keyLimits: KeyLimits | null;
  hold: Hold | null;
  /** The hold was taken from this instance's outage lease (Redis did not answer at admission, or local admission). */
  fromLease: boolean;
  /** Admitted locally while Redis is healthy: the window units its settlement writes. */
  localWindow?: LocalWindowSettlement;
  /** Sends the response's held-back end once the settlement is durable. */
  releaseEnd: () => void;
}

/** The most output a request can produce on an endpoint, times its choices. */
function maxOutputTokens(
  request: ChatCompletionRequest,
  endpoint: EndpointConfig,
  promptTokens: number,
  fallback: number,
): number {
  const asked = request.max_completion_tokens ?? request.max_tokens;
  const bound =
    asked ??
    endpoint.maxOutputTokens ??
    (endpoint.contextLength !== null ? Math.max(1, endpoint.contextLength - promptTokens) : fallback);
  const choices = typeof request.n === 'number' && request.n > 1 ? request.n : 1;
  return bound * choices;
}

/** The hold: the dearest endpoint the request may end up on (fallbacks included). */
export function holdAmount(
  request: ChatCompletionRequest,
  endpoints: EndpointConfig[],
  promptTokens: number,
  fallbackOutput: number,
): number {
  let highest = 0;
  for (const endpoint of endpoints) {
    highest = Math.max(
      highest,
      maximumCostNanos(
        promptTokens,
        maxOutputTokens(request, endpoint, promptTokens, fallbackOutput),
        endpoint.pricing,
      ),
    );
  }
  return highest;
}

export function keyLimitsOf(key: ApiKeyRecord): KeyLimits {
  return { rpmLimit: positive(key.rpmLimit), tpmLimit: positive(key.tpmLimit) };
}

export function keyQuotaNanos(key: ApiKeyRecord): { monthly: number | null; lifetime: number | null } {
  return {
    monthly: key.monthlyQuotaMicros === null ? null : microsToNanos(key.monthlyQuotaMicros),
    lifetime: key.creditLimitMicros === null ? null : microsToNanos(key.creditLimitMicros),
  };
}

/** OpenAI's x-ratelimit-* headers for whichever limits the key has. */
export function rateLimitHeaders(check: RateCheck): Record<string, string> {
  const headers: Record<string, string> = {};
  if (check.requests) {
    headers['x-ratelimit-limit-requests'] = String(check.requests.limit);
    headers['x-ratelimit-remaining-requests'] = String(check.requests.remaining);
    headers['x-ratelimit-reset-requests'] = formatDuration(check.requests.resetMs);
  }
  if (check.tokens) {
    headers['x-ratelimit-limit-tokens'] = String(check.tokens.limit);
    headers['x-ratelimit-remaining-tokens'] = String(check.tokens.remaining);
    headers['x-ratelimit-reset-tokens'] = formatDuration(check.tokens.resetMs);
  }
  return headers;
}

export function rateLimitError(check: RateCheck): RateLimitError {
  const headers = {
    ...rateLimitHeaders(check),
    'retry-after': String(Math.max(1, Math.ceil(check.retryAfterMs / 1000))),
  };
  return check.refusedBy === 'tokens'
    ? new RateLimitError(
        `Rate limit reached for this API key: ${check.tokens?.limit} tokens per minute. Retry after ${headers['retry-after']} s.`,
        'tokens_per_minute_exceeded',
        headers,
      )
    : new RateLimitError(
        `Rate limit reached for this API key: ${check.requests?.limit} requests per minute. Retry after ${headers['retry-after']} s.`,
        'requests_per_minute_exceeded',
        headers,
      );
}

export function holdRefusal(outcome: Exclude<HoldOutcome, 'held'>): Error {
  switch (outcome) {
    case 'insufficient_credits':
      return new InsufficientCreditsError(
        'Your credit balance does not cover the most this request can cost. Add credits (POST /api-account/user/billing/create-checkout, or an operator runs `gateway credits grant --email <your email> --amount <USD>`), or lower max_tokens.',
      );
    case 'quota_exceeded':
      return new PermissionDeniedError('This API key has used its monthly quota.', 'quota_exceeded');
    case 'credit_limit_exceeded':
      return new PermissionDeniedError('This API key has reached its credit limit.', 'credit_limit_exceeded');
  }
}

/** "1s", "6m0s", "250ms" as OpenAI writes reset durations. */
function formatDuration(milliseconds: number): string {
  const ms = Math.max(0, Math.ceil(milliseconds));
  if (ms < 1000) return `${ms}ms`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round(((ms % 60_000) / 1000) * 1000) / 1000;
  return minutes > 0 ? `${minutes}m${seconds}s` : `${seconds}s`;
}

function positive(value: number | null): number | null {
  return value !== null && value > 0 ? value : null;
}

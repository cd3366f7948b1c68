import { GatewayError, InternalError, UpstreamClientError, UpstreamError } from '../shared/errors.js';
import { passThroughCode } from '../shared/error-codes.js';
import type { Clock } from '../shared/clock.js';
import type { RouteCandidate } from './model-directory.js';
import { toUpstreamError } from '../providers/upstream-client.js';
import { guardUpstreamError, type UpstreamErrorLog } from '../providers/provider-secrets.js';
import type { AttemptRecord, CompletionOutcome } from './completion-outcome.js';
import type { RoutingRuntime } from './routing-runtime.js';
import type { RequestDeadline } from './request-deadline.js';
import { candidateKey } from './endpoint-key.js';
import { backoffDelayMs, parseRetryAfterMs } from './retry-policy.js';

/** One attempt's result: a value, or an error with the upstream's `retry-after` when it sent one. */
export type AttemptResult<T> = { value: T } | { error: GatewayError; retryAfterMs: number | null };

export interface RunWithFallbackInput<T> {
  candidates: RouteCandidate[];
  routing: RoutingRuntime;
  clock: Clock;
  controller: AbortController;
  deadline: RequestDeadline;
  outcome: CompletionOutcome;
  /** A reason this candidate cannot serve the request at all (no adapter, `n` unsupported): skipped, not attempted. */
  refuse?(candidate: RouteCandidate): GatewayError | 'skip' | null;
  /** One upstream call (or exchange) on a candidate; records itself in outcome.attempts via recordAttempt. */
  attempt(candidate: RouteCandidate): Promise<AttemptResult<T>>;
}

/**
 * The gateway failed before sending anything upstream (it could not build or serialise the
 * provider's request). Nothing the endpoint did: the breaker is left as it was and no other
 * candidate is tried, since the same request would fail the same way.
 */
class RequestNotSentError extends InternalError {
  constructor(cause: unknown) {
    super('The gateway could not prepare this request for the provider. It has been logged.', cause);
  }
}

/**
 * Runs the part of an attempt that happens before the upstream is contacted. Our own errors
 * (a provider's incomplete credentials, a part the provider cannot take) pass as they are;
 * anything else thrown there (a stack overflow serialising the body) is a RequestNotSentError.
 */
export function beforeSending<T>(build: () => T | Promise<T>): T | Promise<T> {
  let built: T | Promise<T>;
  try {
    built = build();
  } catch (error) {
    throw notSent(error);
  }
  // A synchronous build (most adapters) is returned as it is: no promise made for it.
  return built instanceof Promise
    ? built.catch((error: unknown) => {
        throw notSent(error);
      })
    : built;
}

function notSent(error: unknown): GatewayError {
  return error instanceof GatewayError ? error : new RequestNotSentError(error);
}

/**
 * Upstream failures worth another attempt: connection errors, timeouts, 429 and 5xx. Errors
 * that are the client's fault (400, 401, 403, 404, 413, 422 from upstream) are answered as they are.
 */
function isRetriable(error: GatewayError): boolean {
  if (error instanceof UpstreamClientError) return error.status === 429;
  return error instanceof UpstreamError;
}

/** How early a candidate may be tried before its retry-after has passed (timer vs wall clock). */
const TIMER_SLACK_MS = 5;

function isRateLimit(error: GatewayError): boolean {
  return error instanceof UpstreamClientError && error.status === 429;
}

/**
 * Tries the candidates in order until one succeeds. After a full round of failures it waits
 * (backoff with jitter, at least the longest `retry-after` that blocks every candidate) and goes
 * round again, while the deadline allows. Endpoints whose circuit is open are skipped. Shared by
 * every endpoint kind (chat, embeddings), so routing behaves the same everywhere.
 */
export async function runWithFallback<T>(input: RunWithFallbackInput<T>): Promise<T> {
  const { candidates, routing, controller, clock } = input;
  const signal = controller.signal;
  const notBefore = new Map<RouteCandidate, number>();
  const lastErrors = new Map<RouteCandidate, GatewayError>();
  let lastError: GatewayError | undefined;
  let reopensAt: number | null = null;

  for (let round = 0; round <= routing.settings.retries; round++) {
    if (round > 0) {
      const now = clock.now();
      const earliest = Math.min(...candidates.map((candidate) => notBefore.get(candidate) ?? now));
      const wait = Math.max(
        backoffDelayMs(round - 1, routing.settings.backoffBaseMs, routing.settings.backoffMaxMs, routing.random),
        earliest - now,
      );
      // A wait that would outlast the deadline only delays the same error.
      if (wait >= input.deadline.remainingMs()) break;
      if (wait > 0) await routing.sleep(wait, signal).catch(() => undefined);
      if (signal.aborted) throw abortReason(signal, lastError);
    }
    let triedThisRound = false;
    for (const candidate of candidates) {
      if (signal.aborted) throw abortReason(signal, lastError);
      // Timers may fire a millisecond before the wall clock says the wait is over: a candidate due
      // within the slack is tried, or the round after a retry-after wait would try nothing.
      if ((notBefore.get(candidate) ?? 0) > clock.now() + TIMER_SLACK_MS) continue;
      const refusal = input.refuse?.(candidate) ?? null;
      if (refusal !== null) {
        if (refusal !== 'skip') lastError = refusal;
        continue;
      }
      const key = candidateKey(candidate);
      // A breaker we cannot read (Redis down) must not take the endpoint out of service.
      const admission =
        routing.health.admitNow?.(key) ??
        (await routing.health.admit(key).catch(() => ({ admitted: true, probe: false, retryAtMs: null })));
      if (!admission.admitted) {
        if (admission.retryAtMs !== null)
          reopensAt = reopensAt === null ? admission.retryAtMs : Math.min(reopensAt, admission.retryAtMs);
        continue;
      }
      triedThisRound = true;
      const result = await input.attempt(candidate);
      if ('value' in result) {
        void routing.health.recordSuccess(key).catch(() => undefined);
        return result.value;
      }
      const error = result.error;
      if (signal.aborted) throw abortReason(signal, error);
      // Only what the upstream did may move its breaker.
      if (error instanceof RequestNotSentError) throw error;
      if (!isRetriable(error)) {
        // The endpoint answered sensibly; the request was at fault.
        void routing.health.recordSuccess(key).catch(() => undefined);
        throw error;
      }
      // A rate limit is the provider saying "later", not a sick endpoint: it must not open the breaker
      // (which would turn every later request into a 503).
      if (!isRateLimit(error)) void routing.health.recordFailure(key).catch(() => undefined);
      // The wait may come from the HTTP header or from the error body (Gemini's RetryInfo), which the mapper put on the error.
      const retryAfterMs =
        result.retryAfterMs ?? (error.headers ? parseRetryAfterMs(error.headers, clock.now()) : null);
      if (retryAfterMs !== null) notBefore.set(candidate, clock.now() + retryAfterMs);
      lastErrors.set(candidate, error);
      lastError = error;
    }
    if (!triedThisRound && notBefore.size === 0) break;
  }
  if (lastErrors.size > 0 && [...lastErrors.values()].every(isRateLimit))
    throw rateLimitedEverywhere(input, notBefore, lastError!);
  if (lastError) throw lastError;
  if (reopensAt !== null) {
    const seconds = Math.max(1, Math.ceil((reopensAt - clock.now()) / 1000));
    throw new UpstreamError(
      503,
      'endpoints_unavailable',
      `Every endpoint that could serve this request is failing; the gateway is holding traffic back for ${seconds} s.`,
      { headers: { 'retry-after': String(seconds) } },
    );
  }
  throw new UpstreamError(502, 'no_provider_available', 'No provider could serve this request.');
}

/**
 * Runs one upstream exchange on a candidate and records it in outcome.attempts (status, error
 * code, latency), turning whatever it throws into a GatewayError.
 */
export async function recordAttempt<T>(
  input: { clock: Clock; outcome: CompletionOutcome; controller: AbortController; log?: UpstreamErrorLog },
  candidate: RouteCandidate,
  exchange: (attempt: AttemptRecord, setRetryAfter: (ms: number | null) => void) => Promise<T>,
): Promise<AttemptResult<T>> {
  const started = input.clock.now();
  const attempt: AttemptRecord = {
    providerId: candidate.provider.id,
    modelId: candidate.model.id,
    upstreamModel: candidate.endpoint.upstreamModel,
    status: 0,
    errorCode: null,
    startedAt: started,
    latencyMs: 0,
  };
  input.outcome.attempts.push(attempt);
  let retryAfterMs: number | null = null;
  try {
    const value = await exchange(attempt, (ms) => (retryAfterMs = ms));
    attempt.latencyMs = input.clock.now() - started;
    return { value };
  } catch (error) {
    const gatewayError = guardUpstreamError(
      toUpstreamError(error, candidate.provider, input.controller.signal),
      candidate.provider,
      input.log,
    );
    attempt.errorCode = gatewayError.code;
    if (!attempt.status || attempt.status < 300) attempt.status = gatewayError.status;
    attempt.latencyMs = input.clock.now() - started;
    return { error: gatewayError, retryAfterMs };
  }
}

/**
 * Every endpoint that was tried answered 429: the client gets the last upstream 429 (its message
 * and code), with a Retry-After of the earliest moment one of them said it would take traffic
 * again (at least 1 s, also when none said), never a 503.
 */
function rateLimitedEverywhere(
  input: { clock: Clock },
  notBefore: Map<RouteCandidate, number>,
  last: GatewayError,
): GatewayError {
  const now = input.clock.now();
  const waits = [...notBefore.values()].map((at) => at - now).filter((wait) => wait > 0);
  const seconds = Math.max(1, Math.ceil((waits.length > 0 ? Math.min(...waits) : 1000) / 1000));
  // The code is the upstream's own 429 code, relayed as received.
  return new UpstreamClientError(429, last.type, passThroughCode(last.code), last.message, last.param, {
    ...last.headers,
    'retry-after': String(seconds),
  });
}

function abortReason(signal: AbortSignal, fallback: GatewayError | undefined): GatewayError {
  if (signal.reason instanceof GatewayError) return signal.reason;
  return fallback ?? new UpstreamError(502, 'client_closed_request', 'The request was cancelled.');
}

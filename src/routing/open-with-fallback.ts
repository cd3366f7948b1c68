import { GatewayError, InvalidRequestError, UpstreamClientError, UpstreamError } from '../shared/errors.js';
import type { ChatCompletionRequest } from '../shared/openai-types.js';
import type { TranslationContext } from '../providers/provider-adapter.js';
import type { ProviderRegistry } from '../providers/provider-registry.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import type { RouteCandidate } from '../gateway/model-directory.js';
import { toUpstreamError, type UpstreamClient } from '../gateway/upstream-client.js';
import type { AttemptRecord, CompletionOutcome } from '../gateway/completion-outcome.js';
import type { OpenedAttempt } from '../gateway/chat-completions-handler.js';
import type { RoutingRuntime } from './routing-runtime.js';
import type { RequestDeadline } from './request-deadline.js';
import { candidateKey } from './endpoint-key.js';
import { backoffDelayMs, parseRetryAfterMs } from './retry-policy.js';

export interface OpenWithFallbackInput {
  body: ChatCompletionRequest;
  candidates: RouteCandidate[];
  registry: ProviderRegistry;
  upstream: UpstreamClient;
  clock: Clock;
  ids: IdGenerator;
  routing: RoutingRuntime;
  controller: AbortController;
  deadline: RequestDeadline;
  outcome: CompletionOutcome;
  requestId: string;
}

/**
 * Upstream failures worth another attempt: connection errors, timeouts, 429 and 5xx. Errors
 * that are the client's fault (400, 401, 403, 404, 413, 422 from upstream) are answered as they are.
 */
export function isRetriable(error: GatewayError): boolean {
  if (error instanceof UpstreamClientError) return error.status === 429;
  return error instanceof UpstreamError;
}

/**
 * Tries the candidates in order until one answers, before any byte reaches the client:
 * a stream is returned as soon as the upstream answered 2xx (from then on it is never retried);
 * a whole answer is read and parsed inside the attempt, so a broken body still falls back.
 * After a full round of failures it waits (backoff with jitter, at least the longest
 * `retry-after` that blocks every candidate) and goes round again, while the deadline allows.
 * Endpoints whose circuit is open are skipped. Every upstream call is recorded in outcome.attempts.
 */
export async function openWithFallback(input: OpenWithFallbackInput): Promise<OpenedAttempt> {
  const { body, candidates, routing, controller, clock, outcome } = input;
  const signal = controller.signal;
  const notBefore = new Map<RouteCandidate, number>();
  let lastError: GatewayError | undefined;
  let reopensAt: number | null = null;
  const lastErrors = new Map<RouteCandidate, GatewayError>();

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
      if ((notBefore.get(candidate) ?? 0) > clock.now()) continue;
      const adapter = input.registry.get(candidate.provider.type);
      if (!adapter) continue;
      if (body.n !== undefined && body.n !== null && body.n > 1 && !adapter.supportsMultipleChoices) {
        lastError = new InvalidRequestError(
          `'n' greater than 1 is not supported by ${candidate.provider.name}.`,
          'n',
          'unsupported_parameter',
        );
        continue;
      }
      const key = candidateKey(candidate);
      // A breaker we cannot read (Redis down) must not take the endpoint out of service.
      const admission = await routing.health
        .admit(key)
        .catch(() => ({ admitted: true, probe: false, retryAtMs: null }));
      if (!admission.admitted) {
        if (admission.retryAtMs !== null)
          reopensAt = reopensAt === null ? admission.retryAtMs : Math.min(reopensAt, admission.retryAtMs);
        continue;
      }
      triedThisRound = true;
      const result = await attemptOnce(input, candidate, adapter);
      if ('opened' in result) {
        void routing.health.recordSuccess(key).catch(() => undefined);
        return result.opened;
      }
      const error = result.error;
      if (signal.aborted) throw abortReason(signal, error);
      if (!isRetriable(error)) {
        // The endpoint answered sensibly; the request was at fault.
        void routing.health.recordSuccess(key).catch(() => undefined);
        throw error;
      }
      // A rate limit is the provider saying "later", not a sick endpoint: it must not open the breaker
      // (which would turn every later request into a 503).
      if (!isRateLimit(error)) void routing.health.recordFailure(key).catch(() => undefined);
      if (result.retryAfterMs !== null) notBefore.set(candidate, clock.now() + result.retryAfterMs);
      lastErrors.set(candidate, error);
      lastError = error;
    }
    if (!triedThisRound && notBefore.size === 0) break;
  }
  if (lastErrors.size > 0 && [...lastErrors.values()].every(isRateLimit)) throw rateLimitedEverywhere(input, notBefore);
  if (lastError) throw lastError;
  if (reopensAt !== null) {
    const seconds = Math.max(1, Math.ceil((reopensAt - clock.now()) / 1000));
    throw new UpstreamError(
      503,
      'endpoints_unavailable',
      `Every endpoint that could serve this request is failing; the gateway is holding traffic back for ${seconds} s.`,
      {
        headers: { 'retry-after': String(seconds) },
      },
    );
  }
  throw new UpstreamError(502, 'no_provider_available', 'No provider could serve this request.');
}

function isRateLimit(error: GatewayError): boolean {
  return error instanceof UpstreamClientError && error.status === 429;
}

/**
 * Every endpoint that was tried answered 429: the client gets a 429 too, with the earliest moment
 * one of them said it would take traffic again (at least 1 s), never a 503.
 */
function rateLimitedEverywhere(input: OpenWithFallbackInput, notBefore: Map<RouteCandidate, number>): GatewayError {
  const now = input.clock.now();
  const waits = [...notBefore.values()].map((at) => at - now).filter((wait) => wait > 0);
  const seconds = Math.max(1, Math.ceil((waits.length > 0 ? Math.min(...waits) : 1000) / 1000));
  const providers = input.candidates.length > 1 ? 'Every provider of this model is' : 'The provider is';
  return new UpstreamClientError(
    429,
    'rate_limit_error',
    'upstream_rate_limited',
    `${providers} rate-limiting requests right now; retry after ${seconds} s.`,
    null,
    { 'retry-after': String(seconds) },
  );
}

type AttemptResult = { opened: OpenedAttempt } | { error: GatewayError; retryAfterMs: number | null };

async function attemptOnce(
  input: OpenWithFallbackInput,
  candidate: RouteCandidate,
  adapter: NonNullable<ReturnType<ProviderRegistry['get']>>,
): Promise<AttemptResult> {
  const { body, clock, outcome, controller } = input;
  const attemptStarted = clock.now();
  const context: TranslationContext = {
    provider: candidate.provider,
    upstreamModel: candidate.endpoint.upstreamModel,
    publicModel: candidate.model.id,
    completionId: `chatcmpl-${input.requestId.replace(/-/g, '')}`,
    created: Math.floor(attemptStarted / 1000),
    generateId: (prefix) => input.ids.next(prefix),
    stream: body.stream === true,
  };
  const attempt: AttemptRecord = {
    providerId: candidate.provider.id,
    modelId: candidate.model.id,
    upstreamModel: candidate.endpoint.upstreamModel,
    status: 0,
    errorCode: null,
    latencyMs: 0,
  };
  outcome.attempts.push(attempt);
  let retryAfterMs: number | null = null;
  try {
    const upstreamRequest = await adapter.buildRequest(body, context);
    const response = await input.upstream.send(candidate.provider, upstreamRequest, controller.signal);
    attempt.status = response.statusCode;
    if (response.statusCode < 200 || response.statusCode >= 300) {
      retryAfterMs = parseRetryAfterMs(response.headers, clock.now());
      const errorBody = new Uint8Array(await response.body.arrayBuffer().catch(() => new ArrayBuffer(0)));
      throw adapter.mapError(response.statusCode, errorBody, response.headers, context);
    }
    const opened: OpenedAttempt = { candidate, adapter, context, response, warnings: upstreamRequest.warnings };
    if (!context.stream) {
      // Nothing has reached the client yet, so a body that breaks off or does not parse can still fall back.
      const bytes = new Uint8Array(await response.body.arrayBuffer());
      opened.completion = adapter.parseResponse(bytes, context);
    }
    attempt.latencyMs = clock.now() - attemptStarted;
    return { opened };
  } catch (error) {
    const gatewayError = toUpstreamError(error, candidate.provider, controller.signal);
    attempt.errorCode = gatewayError.code;
    if (!attempt.status || attempt.status < 300) attempt.status = gatewayError.status;
    attempt.latencyMs = clock.now() - attemptStarted;
    return { error: gatewayError, retryAfterMs };
  }
}

function abortReason(signal: AbortSignal, fallback: GatewayError | undefined): GatewayError {
  if (signal.reason instanceof GatewayError) return signal.reason;
  return fallback ?? new UpstreamError(502, 'client_closed_request', 'The request was cancelled.');
}

import { InvalidRequestError } from '../shared/errors.js';
import type { ChatCompletion, ChatCompletionRequest } from '../shared/openai-types.js';
import type { ProviderAdapter, TranslationContext } from '../providers/provider-adapter.js';
import type { ProviderRegistry } from '../providers/provider-registry.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import type { RouteCandidate } from './model-directory.js';
import type { UpstreamClient, UpstreamResponse } from '../providers/upstream-client.js';
import { openStreamedAnswer, receiveWholeAnswer } from './receive-answer.js';
import type { CompletionOutcome } from './completion-outcome.js';
import type { RoutingRuntime } from './routing-runtime.js';
import type { RequestDeadline } from './request-deadline.js';
import type { UpstreamErrorLog } from '../providers/provider-secrets.js';
import { beforeSending, recordAttempt, runWithFallback, type AttemptResult } from './run-with-fallback.js';

/** An upstream call that answered 2xx, ready to be read. */
export interface OpenedAttempt {
  candidate: RouteCandidate;
  adapter: ProviderAdapter;
  context: TranslationContext;
  /** A stream's opened answer, its body still to be read (a whole answer has none: it is `completion`). */
  response?: UpstreamResponse;
  warnings: string[];
  /** A whole (non-stream) answer, already read and parsed inside the attempt. */
  completion?: ChatCompletion;
}

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
  /** Where an upstream's refusal of our credentials is logged (the request's logger). */
  log?: UpstreamErrorLog;
}

/**
 * Tries the candidates in order until one answers, before any byte reaches the client
 * (rounds, backoff, breakers: run-with-fallback.ts): a stream is returned as soon as the upstream
 * answered 2xx (from then on it is never retried); a whole answer is read and parsed inside the
 * attempt, so a broken body still falls back. Every upstream call is recorded in outcome.attempts.
 */
export async function openWithFallback(input: OpenWithFallbackInput): Promise<OpenedAttempt> {
  return runWithFallback({
    ...input,
    refuse: (candidate) => refuseChat(input, candidate),
    attempt: (candidate) => attemptChat(input, candidate),
  });
}

/** Why a candidate cannot take this chat request at all: no adapter (skipped), or `n` > 1 it cannot honour. */
export function refuseChat(
  input: Pick<OpenWithFallbackInput, 'body' | 'registry'>,
  candidate: RouteCandidate,
): InvalidRequestError | 'skip' | null {
  const { body } = input;
  const adapter = input.registry.get(candidate.provider.type);
  if (!adapter) return 'skip';
  if (body.n !== undefined && body.n !== null && body.n > 1 && !adapter.supportsMultipleChoices) {
    return new InvalidRequestError(
      `'n' greater than 1 is not supported by ${candidate.provider.name}.`,
      'n',
      'unsupported_parameter',
    );
  }
  return null;
}

/** One translated chat attempt on a candidate (also the fallback of a native request on a non-native endpoint). */
export async function attemptChat(
  input: OpenWithFallbackInput,
  candidate: RouteCandidate,
): Promise<AttemptResult<OpenedAttempt>> {
  const { body, clock, controller } = input;
  const adapter = input.registry.get(candidate.provider.type)!;
  const context: TranslationContext = {
    provider: candidate.provider,
    upstreamModel: candidate.endpoint.upstreamModel,
    publicModel: candidate.model.id,
    completionId: `chatcmpl-${input.requestId.replace(/-/g, '')}`,
    created: Math.floor(clock.now() / 1000),
    generateId: (prefix) => input.ids.next(prefix),
    stream: body.stream === true,
  };
  return recordAttempt(input, candidate, async (attempt, setRetryAfter) => {
    const built = beforeSending(() => adapter.buildRequest(body, context));
    // A synchronous build (most adapters) is not awaited: one promise job fewer before the call.
    const upstreamRequest = built instanceof Promise ? await built : built;
    const call = {
      upstream: input.upstream,
      provider: candidate.provider,
      signal: controller.signal,
      clock,
      attempt,
      setRetryAfter,
      adapter,
      context,
    };
    if (!context.stream) {
      // Read whole (a dispatch handler, no body stream): nothing has reached the client yet, so a
      // body that breaks off or does not parse can still fall back.
      const completion = adapter.parseResponse(await receiveWholeAnswer(call, upstreamRequest), context);
      return { candidate, adapter, context, warnings: upstreamRequest.warnings, completion };
    }
    const response = await openStreamedAnswer(call, upstreamRequest);
    return { candidate, adapter, context, response, warnings: upstreamRequest.warnings };
  });
}

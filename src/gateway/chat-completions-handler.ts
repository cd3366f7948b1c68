import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyRecord } from '../accounts/keys/api-key-record.js';
import { GatewayError, InvalidRequestError, UpstreamClientError, UpstreamError } from '../shared/errors.js';
import type { ChatCompletionRequest, Usage } from '../shared/openai-types.js';
import type { ProviderAdapter, TranslationContext } from '../providers/provider-adapter.js';
import type { ProviderRegistry } from '../providers/provider-registry.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import type { ModelDirectory, RouteCandidate } from './model-directory.js';
import { planRoute } from './plan-route.js';
import { validateChatRequest } from './validate-chat-request.js';
import { toUpstreamError, type UpstreamClient, type UpstreamResponse } from './upstream-client.js';
import type { AttemptRecord, CompletionObserver, CompletionOutcome } from './completion-outcome.js';
import { streamCompletion } from './stream-completion.js';
import type { RequestAdmission } from './request-admission.js';

export interface ChatHandlerDeps {
  directory: ModelDirectory;
  registry: ProviderRegistry;
  upstream: UpstreamClient;
  clock: Clock;
  ids: IdGenerator;
  observers: CompletionObserver[];
  /** Limits, quotas and credit holds (metering), checked before the request is sent. */
  admission?: RequestAdmission;
}

/** An upstream call that answered 2xx, ready to be read. */
export interface OpenedAttempt {
  candidate: RouteCandidate;
  adapter: ProviderAdapter;
  context: TranslationContext;
  response: UpstreamResponse;
  warnings: string[];
}

/** Upstream failures worth trying the next endpoint for: connection errors, timeouts, 429 and 5xx. */
export function isRetriable(error: GatewayError): boolean {
  if (error instanceof UpstreamClientError) return error.status === 429;
  return error instanceof UpstreamError;
}

export function createChatCompletionsHandler(deps: ChatHandlerDeps) {
  return async function handleChatCompletion(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const body = request.body as ChatCompletionRequest;
    validateChatRequest(body);
    const key = (request as FastifyRequest & { apiKey?: ApiKeyRecord }).apiKey ?? null;
    const startedAt = deps.clock.now();
    const outcome: CompletionOutcome = {
      requestId: request.id,
      keyId: key?.id ?? null,
      userId: key?.userId ?? null,
      requestedModel: body.model,
      modelId: null,
      providerId: null,
      upstreamModel: null,
      streamed: body.stream === true,
      status: 200,
      errorCode: null,
      usage: null,
      outputCharacters: 0,
      clientAborted: false,
      startedAt,
      latencyMs: 0,
      timeToFirstTokenMs: null,
      attempts: [],
    };

    // One controller per request: a client that goes away, or the total deadline, aborts upstream.
    const controller = new AbortController();
    const onClientClose = () => {
      if (!reply.raw.writableFinished) {
        outcome.clientAborted = true;
        controller.abort(new UpstreamError(502, 'client_closed_request', 'The client closed the connection.'));
      }
    };
    reply.raw.once('close', onClientClose);

    let opened: OpenedAttempt | undefined;
    try {
      const candidates = planRoute(body.model, key, deps.directory);
      if (deps.admission) await deps.admission.admit({ request: body, key, candidates, outcome, reply });
      opened = await openFirstAvailable(body, candidates, deps, controller, outcome, request.id);
      const { candidate, response } = opened;
      outcome.modelId = candidate.model.id;
      outcome.providerId = candidate.provider.id;
      outcome.upstreamModel = candidate.endpoint.upstreamModel;
      const headers: Record<string, string> = {
        'x-gateway-provider': candidate.provider.id,
        'x-gateway-model': candidate.model.id,
        'x-gateway-attempts': String(outcome.attempts.length),
      };
      if (opened.warnings.length > 0) headers['x-gateway-warnings'] = opened.warnings.join('; ');

      if (body.stream) {
        await streamCompletion({ request: body, reply, opened, headers, outcome, signal: controller.signal, clock: deps.clock, requestId: request.id });
        return;
      }
      const bytes = new Uint8Array(await response.body.arrayBuffer());
      const completion = opened.adapter.parseResponse(bytes, opened.context);
      outcome.usage = (completion.usage as Usage | undefined) ?? null;
      outcome.outputCharacters = completion.choices.reduce((sum, choice) => sum + (choice.message?.content?.length ?? 0), 0);
      outcome.timeToFirstTokenMs = deps.clock.now() - startedAt;
      reply.headers(headers).send(completion);
    } catch (error) {
      const gatewayError = error instanceof GatewayError ? error : opened ? toUpstreamError(error, opened.candidate.provider, controller.signal) : null;
      outcome.status = gatewayError?.status ?? 500;
      outcome.errorCode = gatewayError?.code ?? 'internal_error';
      throw gatewayError ?? error;
    } finally {
      clearTimeout(totalTimer(controller));
      outcome.latencyMs = deps.clock.now() - startedAt;
      reply.raw.removeListener('close', onClientClose);
      for (const observer of deps.observers) observer.onCompletion(outcome);
    }
  };
}

const TOTAL_TIMERS = new WeakMap<AbortController, NodeJS.Timeout>();
function totalTimer(controller: AbortController): NodeJS.Timeout | undefined {
  return TOTAL_TIMERS.get(controller);
}

/** Tries candidates in order until one answers 2xx; client errors stop the search at once. */
async function openFirstAvailable(
  body: ChatCompletionRequest,
  candidates: RouteCandidate[],
  deps: ChatHandlerDeps,
  controller: AbortController,
  outcome: CompletionOutcome,
  requestId: string,
): Promise<OpenedAttempt> {
  let lastError: GatewayError | undefined;
  for (const candidate of candidates) {
    if (controller.signal.aborted) break;
    const adapter = deps.registry.get(candidate.provider.type);
    if (!adapter) continue;
    if (body.n !== undefined && body.n !== null && body.n > 1 && !adapter.supportsMultipleChoices) {
      lastError = new InvalidRequestError(`'n' greater than 1 is not supported by ${candidate.provider.name}.`, 'n', 'unsupported_parameter');
      continue;
    }
    const attemptStarted = deps.clock.now();
    const context: TranslationContext = {
      provider: candidate.provider,
      upstreamModel: candidate.endpoint.upstreamModel,
      publicModel: candidate.model.id,
      completionId: `chatcmpl-${requestId.replace(/-/g, '')}`,
      created: Math.floor(attemptStarted / 1000),
      generateId: (prefix) => deps.ids.next(prefix),
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
    armTotalTimeout(controller, candidate);
    try {
      const upstreamRequest = await adapter.buildRequest(body, context);
      const response = await deps.upstream.send(candidate.provider, upstreamRequest, controller.signal);
      attempt.status = response.statusCode;
      attempt.latencyMs = deps.clock.now() - attemptStarted;
      if (response.statusCode >= 200 && response.statusCode < 300) {
        return { candidate, adapter, context, response, warnings: upstreamRequest.warnings };
      }
      const errorBody = new Uint8Array(await response.body.arrayBuffer().catch(() => new ArrayBuffer(0)));
      throw adapter.mapError(response.statusCode, errorBody, response.headers, context);
    } catch (error) {
      const gatewayError = toUpstreamError(error, candidate.provider, controller.signal);
      attempt.errorCode = gatewayError.code;
      if (!attempt.status) attempt.status = gatewayError.status;
      attempt.latencyMs = deps.clock.now() - attemptStarted;
      if (!isRetriable(gatewayError) || controller.signal.aborted) throw gatewayError;
      lastError = gatewayError;
    }
  }
  throw lastError ?? new UpstreamError(502, 'no_provider_available', 'No provider could serve this request.');
}

/** The provider's total deadline, per attempt; it aborts the upstream call with a 504. */
function armTotalTimeout(controller: AbortController, candidate: RouteCandidate): void {
  clearTimeout(TOTAL_TIMERS.get(controller));
  const timer = setTimeout(() => {
    controller.abort(new UpstreamError(504, 'upstream_timeout', `${candidate.provider.name} did not finish within ${candidate.provider.timeouts.totalMs} ms.`));
  }, candidate.provider.timeouts.totalMs);
  timer.unref();
  TOTAL_TIMERS.set(controller, timer);
}

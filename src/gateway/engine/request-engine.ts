import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyRecord } from '../../routing/api-key-record.js';
import { GatewayError, InvalidRequestError, UpstreamError } from '../../shared/errors.js';
import type { ChatCompletionRequest, Usage } from '../../shared/openai-types.js';
import type { Clock } from '../../shared/clock.js';
import type { ProviderConfig } from '../../config/gateway-config.js';
import type { ModelDirectory, RouteCandidate } from '../../routing/model-directory.js';
import type { CompletionObserver, CompletionOutcome } from '../../routing/completion-outcome.js';
import type { RoutingRuntime } from '../../routing/routing-runtime.js';
import { requestTimeoutMs } from '../../routing/routing-runtime.js';
import { planRequest } from '../../routing/plan-request.js';
import { RequestDeadline } from '../../routing/request-deadline.js';
import { toUpstreamError } from '../../providers/upstream-client.js';
import { guardUpstreamError } from '../../providers/provider-secrets.js';
import type { RequestAdmission } from '../request-admission.js';
import {
  DROPPED_PARAMS_HEADER,
  UNSUPPORTED_PARAMS_REQUEST_HEADER,
  addDropped,
  enforcePolicy,
  policyFor,
  type UnsupportedParamsPolicy,
} from './dropped-params.js';
import { costAsked, usageWithCost, type AnswerPricer } from './answer-cost.js';
import { clientAppOf, surfaceOf } from './client-app.js';
import { captureContent, type ContentSink } from './content-capture.js';

/** What the engine needs from the app, whatever the surface. */
export interface EngineDeps {
  directory: ModelDirectory;
  clock: Clock;
  observers: CompletionObserver[];
  routing: RoutingRuntime;
  /** Limits, quotas and credit holds (metering), checked before anything is sent upstream. */
  admission?: RequestAdmission;
  /** server.unsupported_params: drop what the endpoint cannot express (named in a header) or refuse. */
  unsupportedParams?: UnsupportedParamsPolicy;
  /** Metering's pricing, for answers that report their cost (usage.cost). */
  pricer?: AnswerPricer;
  /** server.include_cost: every answer reports its cost, asked or not. */
  includeCost?: boolean;
  /** Keeps the bodies of keys with content logging on (off: never called, nothing captured). */
  content?: ContentSink;
}

/** An upstream answer that opened (2xx), before anything reached the client. */
export interface OpenedAnswer {
  candidate: RouteCandidate;
  /** Parameters the endpoint could not honour, for x-gateway-warnings. */
  warnings?: string[];
  /**
   * The provider whose body is still being read while the answer is rendered: a failure that is
   * not ours (a socket reset mid-body) is then mapped as that provider's error. Absent when the
   * whole exchange is already over (embeddings).
   */
  readingFrom?: ProviderConfig;
  /** The endpoint speaks the client's API: the body went as it was, so nothing was dropped. */
  native?: boolean;
}

/** One request in flight, as the surface's open and render steps see it. */
export interface EngineRun {
  request: FastifyRequest;
  reply: FastifyReply;
  key: ApiKeyRecord | null;
  candidates: RouteCandidate[];
  controller: AbortController;
  deadline: RequestDeadline;
  outcome: CompletionOutcome;
  /** The routed request as planned (without `enable_search` when search was optional and no model has it). */
  routed: ChatCompletionRequest;
  /**
   * The usage to put in the answer: with `cost` and `cost_details` when the client asked (or the
   * gateway always includes it), priced once and charged exactly so. Call only when the usage is final.
   */
  answerUsage(usage: Usage | null): Usage | null;
  /** Whether this answer reports its cost (a stream then always ends with its usage). */
  costIncluded: boolean;
  /**
   * A whole answer is built (usage final) and about to be sent: the observers see the outcome
   * now rather than after the send, so metering's settlement (a Redis round trip on PostgreSQL +
   * Redis) runs while the answer is serialised and written; the response's end still waits for
   * it (deferResponseEnd). Once only; the engine calls it at the end for answers that do not.
   */
  finish(): void;
}

/** What one surface hands the engine: how to route and meter it, how to open it, how to answer. */
export interface EngineCall<T extends OpenedAnswer> {
  /** The chat-shaped view routing plans on and admission meters (model, routing fields, messages, max tokens). */
  routed: ChatCompletionRequest;
  streamed: boolean;
  /** Parameters the surface's translation dropped (named in x-gateway-dropped-params, or refused under `refuse`). */
  dropped?: string[];
  /**
   * Search was asked for by a hosted tool the client offers (Responses `web_search`), not demanded:
   * when no model may search, `enable_search` is dropped under this name instead of refusing.
   */
  optionalSearchParam?: string;
  /** Under strict refusals: the error the strict translation raised (thrown when translation is needed). */
  strictRefusal?: GatewayError;
  /** The request cannot be translated at all: thrown when an endpoint of another API may answer. */
  untranslatable?: GatewayError;
  /** Keeps one conversation on one endpoint (prompt_cache_key, Anthropic metadata.user_id) so its prompt cache stays warm. */
  affinityKey?: string | null;
  /** Candidates that will be served natively (nothing dropped there: strict refusal only applies elsewhere). */
  nativeFor?(candidate: RouteCandidate): boolean;
  /** Narrows the planned candidates to those able to serve this surface; throws when none is. */
  eligible?(candidates: RouteCandidate[]): RouteCandidate[];
  /** Opens an answer on one of the candidates (fallback, retry rounds, breakers). */
  open(run: EngineRun): Promise<T>;
  /**
   * Sends the answer in the surface's own format and records usage and output on run.outcome.
   * Headers carry the gateway's x-gateway-* values. A stream renders its own mid-stream failures.
   */
  render(opened: T, run: EngineRun, headers: Record<string, string>): Promise<void>;
}

/**
 * The request lifecycle, once for every surface: routing plan, admission (limits, credit hold),
 * the total deadline, open with fallback, the answer, and one outcome for the observers (metering
 * charges from it, exactly once). A client that goes away, or the deadline, aborts upstream.
 * Errors before the answer starts are thrown; the route renders them in its own envelope.
 */
export async function runRequest<T extends OpenedAnswer>(
  deps: EngineDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  call: EngineCall<T>,
): Promise<void> {
  const key = (request as FastifyRequest & { apiKey?: ApiKeyRecord }).apiKey ?? null;
  const startedAt = deps.clock.now();
  const outcome = newOutcome(request.id, key, call.routed.model, call.streamed, startedAt);
  Object.assign(outcome, clientAppOf(request.headers), { surface: surfaceOf(request.routeOptions.url) });
  if (key?.logContent && deps.content) captureContent(deps.content, request, reply, outcome);
  const controller = new AbortController();
  const onClientClose = () => {
    if (!reply.raw.writableFinished) {
      outcome.clientAborted = true;
      controller.abort(new UpstreamError(502, 'client_closed_request', 'The client closed the connection.'));
    }
  };
  reply.raw.once('close', onClientClose);
  let opened: T | undefined;
  let deadline: RequestDeadline | undefined;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    outcome.latencyMs = deps.clock.now() - startedAt;
    for (const observer of deps.observers) observer.onCompletion(outcome);
  };
  try {
    const dropped = [...(call.dropped ?? [])];
    const { routed, planned } = plan(deps, call, key, dropped);
    const candidates = call.eligible ? call.eligible(planned) : planned;
    if (!call.nativeFor || !candidates.every((candidate) => call.nativeFor!(candidate))) {
      if (call.untranslatable) throw call.untranslatable;
      const policy = policyFor(deps.unsupportedParams, request.headers[UNSUPPORTED_PARAMS_REQUEST_HEADER]);
      if (policy === 'refuse' && call.strictRefusal) throw call.strictRefusal;
      enforcePolicy(dropped, policy);
    }
    if (deps.admission) await deps.admission.admit({ request: routed, key, candidates, outcome, reply });
    deadline = new RequestDeadline(controller, requestTimeoutMs(deps.routing.settings, candidates), deps.clock);
    const pricer = deps.pricer;
    const costIncluded =
      pricer !== undefined && costAsked(request.body, deps.includeCost === true || key?.includeCost === true);
    const answerUsage = (usage: Usage | null) =>
      costIncluded ? usageWithCost(usage, pricer!.priceAnswer(outcome, routed)) : usage;
    const run: EngineRun = {
      request,
      reply,
      key,
      candidates,
      controller,
      deadline,
      outcome,
      routed,
      answerUsage,
      costIncluded,
      finish,
    };
    opened = await call.open(run);
    const { candidate } = opened;
    outcome.modelId = candidate.model.id;
    outcome.providerId = candidate.provider.id;
    outcome.upstreamModel = candidate.endpoint.upstreamModel;
    const headers: Record<string, string> = {
      'x-gateway-provider': candidate.provider.id,
      'x-gateway-model': candidate.model.id,
      'x-gateway-attempts': String(outcome.attempts.length),
    };
    if (opened.warnings && opened.warnings.length > 0) headers['x-gateway-warnings'] = opened.warnings.join('; ');
    if (dropped.length > 0 && !opened.native) headers[DROPPED_PARAMS_HEADER] = dropped.join(', ');
    await call.render(opened, run, headers);
  } catch (error) {
    const provider = opened?.readingFrom;
    const gatewayError =
      error instanceof GatewayError
        ? error
        : provider
          ? guardUpstreamError(toUpstreamError(error, provider, controller.signal), provider)
          : null;
    outcome.status = gatewayError?.status ?? 500;
    outcome.errorCode = gatewayError?.code ?? 'internal_error';
    if (outcome.attempts.length > 0 && !reply.raw.headersSent)
      reply.header('x-gateway-attempts', String(outcome.attempts.length));
    throw gatewayError ?? error;
  } finally {
    deadline?.clear();
    reply.raw.removeListener('close', onClientClose);
    finish();
  }
}

/** The candidates; optional search that no model of the request can do is dropped and named, not refused. */
function plan(
  deps: EngineDeps,
  call: EngineCall<OpenedAnswer>,
  key: ApiKeyRecord | null,
  dropped: string[],
): { routed: ChatCompletionRequest; planned: RouteCandidate[] } {
  const routed = call.routed;
  try {
    return { routed, planned: planRequest(routed, key, deps.directory, deps.routing, call.affinityKey) };
  } catch (error) {
    const searchRefused = error instanceof InvalidRequestError && error.param === 'enable_search';
    if (!searchRefused || !call.optionalSearchParam) throw error;
    addDropped(dropped, call.optionalSearchParam);
    const withoutSearch = { ...routed };
    delete withoutSearch.enable_search;
    return {
      routed: withoutSearch,
      planned: planRequest(withoutSearch, key, deps.directory, deps.routing, call.affinityKey),
    };
  }
}

function newOutcome(
  requestId: string,
  key: ApiKeyRecord | null,
  requestedModel: string,
  streamed: boolean,
  startedAt: number,
): CompletionOutcome {
  return {
    requestId,
    keyId: key?.id ?? null,
    userId: key?.userId ?? null,
    requestedModel,
    modelId: null,
    providerId: null,
    upstreamModel: null,
    streamed,
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
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyRecord } from '../../routing/api-key-record.js';
import { GatewayError, InvalidRequestError, UpstreamError } from '../../shared/errors.js';
import type { Usage } from '../../shared/openai-types.js';
import type { Clock } from '../../shared/clock.js';
import type { EmbeddingContext, EmbeddingRegistry, EmbeddingResult } from '../../providers/embedding-adapter.js';
import type { ModelDirectory, RouteCandidate } from '../../routing/model-directory.js';
import type { UpstreamClient } from '../../providers/upstream-client.js';
import type { CompletionObserver, CompletionOutcome } from '../../routing/completion-outcome.js';
import type { RequestAdmission } from '../request-admission.js';
import type { RoutingRuntime } from '../../routing/routing-runtime.js';
import { requestTimeoutMs } from '../../routing/routing-runtime.js';
import { planRequest } from '../../routing/plan-request.js';
import { RequestDeadline } from '../../routing/request-deadline.js';
import { parseRetryAfterMs } from '../../routing/retry-policy.js';
import { beforeSending, recordAttempt, runWithFallback } from '../../routing/run-with-fallback.js';
import type { EmbeddingsRequest } from './embeddings-request-schema.js';
import {
  admissionRequestFor,
  encodeBase64Vector,
  estimateEmbeddingTokens,
  normalizeEmbeddingInput,
} from './embedding-input.js';

export interface EmbeddingsHandlerDeps {
  directory: ModelDirectory;
  embeddings: EmbeddingRegistry;
  upstream: UpstreamClient;
  clock: Clock;
  observers: CompletionObserver[];
  routing: RoutingRuntime;
  admission?: RequestAdmission;
}

/** A model embeds when its output modalities say so (config `output_modalities: [embeddings]`, catalog embedding models). */
export function isEmbeddingModel(model: { outputModalities: string[] }): boolean {
  return model.outputModalities.includes('embeddings');
}

/**
 * POST /v1/embeddings on the same path as chat: routing plan, admission (limits, credit hold),
 * fallbacks and retries, then one outcome for metering and statistics.
 */
export function createEmbeddingsHandler(deps: EmbeddingsHandlerDeps) {
  return async function handleEmbeddings(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const body = request.body as EmbeddingsRequest;
    const input = normalizeEmbeddingInput(body);
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
      streamed: false,
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
    const controller = new AbortController();
    const onClientClose = () => {
      if (!reply.raw.writableFinished) {
        outcome.clientAborted = true;
        controller.abort(new UpstreamError(502, 'client_closed_request', 'The client closed the connection.'));
      }
    };
    reply.raw.once('close', onClientClose);
    let deadline: RequestDeadline | undefined;
    try {
      const admissionRequest = admissionRequestFor(body, input);
      const planned = planRequest({ ...body, messages: admissionRequest.messages }, key, deps.directory, deps.routing);
      const candidates = planned.filter((candidate) => isEmbeddingModel(candidate.model));
      if (candidates.length === 0) {
        throw new InvalidRequestError(
          `The model '${body.model}' does not create embeddings. Models that do list "embeddings" in output_modalities on /v1/models.`,
          'model',
          'model_not_embedding',
        );
      }
      if (deps.admission) await deps.admission.admit({ request: admissionRequest, key, candidates, outcome, reply });
      deadline = new RequestDeadline(controller, requestTimeoutMs(deps.routing.settings, candidates), deps.clock);
      const { candidate, result } = await runWithFallback({
        candidates,
        routing: deps.routing,
        clock: deps.clock,
        controller,
        deadline,
        outcome,
        refuse: (candidate) => {
          const adapter = deps.embeddings.get(candidate.provider.type);
          if (!adapter) return 'skip';
          const reason = adapter.refuse(input, contextOf(candidate, deps.clock));
          return reason
            ? new InvalidRequestError(`Invalid 'input': ${reason}.`, 'input', 'unsupported_parameter')
            : null;
        },
        attempt: (candidate) =>
          recordAttempt(
            { clock: deps.clock, outcome, controller, log: request.log },
            candidate,
            async (attempt, setRetryAfter) => {
              const adapter = deps.embeddings.get(candidate.provider.type)!;
              const context = contextOf(candidate, deps.clock);
              const bodies: Uint8Array[] = [];
              for (const upstreamRequest of await beforeSending(() => adapter.buildRequests(input, context))) {
                const response = await deps.upstream.send(candidate.provider, upstreamRequest, controller.signal);
                attempt.status = response.statusCode;
                const bytes = new Uint8Array(await response.body.arrayBuffer());
                if (response.statusCode < 200 || response.statusCode >= 300) {
                  setRetryAfter(parseRetryAfterMs(response.headers, deps.clock.now()));
                  throw adapter.mapError(response.statusCode, bytes, response.headers, context);
                }
                bodies.push(bytes);
              }
              return { candidate, result: adapter.parseResponses(bodies, input, context) };
            },
          ),
      });
      outcome.modelId = candidate.model.id;
      outcome.providerId = candidate.provider.id;
      outcome.upstreamModel = candidate.endpoint.upstreamModel;
      const promptTokens = result.promptTokens ?? estimateEmbeddingTokens(input);
      const usage: Usage = { prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens };
      outcome.usage = usage;
      outcome.timeToFirstTokenMs = deps.clock.now() - startedAt;
      reply
        .headers({
          'x-gateway-provider': candidate.provider.id,
          'x-gateway-model': candidate.model.id,
          'x-gateway-attempts': String(outcome.attempts.length),
        })
        .send(renderEmbeddings(result, candidate, body.encoding_format === 'base64', usage));
    } catch (error) {
      const gatewayError = error instanceof GatewayError ? error : null;
      outcome.status = gatewayError?.status ?? 500;
      outcome.errorCode = gatewayError?.code ?? 'internal_error';
      if (outcome.attempts.length > 0) reply.header('x-gateway-attempts', String(outcome.attempts.length));
      throw error;
    } finally {
      deadline?.clear();
      outcome.latencyMs = deps.clock.now() - startedAt;
      reply.raw.removeListener('close', onClientClose);
      for (const observer of deps.observers) observer.onCompletion(outcome);
    }
  };
}

function contextOf(candidate: RouteCandidate, clock: Clock): EmbeddingContext {
  return {
    provider: candidate.provider,
    upstreamModel: candidate.endpoint.upstreamModel,
    created: Math.floor(clock.now() / 1000),
  };
}

/** OpenAI's CreateEmbeddingResponse. */
function renderEmbeddings(result: EmbeddingResult, candidate: RouteCandidate, base64: boolean, usage: Usage) {
  return {
    object: 'list' as const,
    data: result.vectors.map((vector, index) => ({
      object: 'embedding' as const,
      index,
      embedding: base64 ? encodeBase64Vector(vector) : vector,
    })),
    model: candidate.model.id,
    usage: { prompt_tokens: usage.prompt_tokens, total_tokens: usage.total_tokens },
  };
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import { copyCost } from '../engine/answer-cost.js';
import { InvalidRequestError } from '../../shared/errors.js';
import type { ChatCompletionRequest, Usage } from '../../shared/openai-types.js';
import type { Clock } from '../../shared/clock.js';
import type {
  EmbeddingContext,
  EmbeddingInput,
  EmbeddingRegistry,
  EmbeddingResult,
} from '../../providers/embedding-adapter.js';
import type { ModelDirectory, RouteCandidate } from '../../routing/model-directory.js';
import type { UpstreamClient } from '../../providers/upstream-client.js';
import type { CompletionObserver } from '../../routing/completion-outcome.js';
import type { RequestAdmission } from '../request-admission.js';
import type { RoutingRuntime } from '../../routing/routing-runtime.js';
import { runRequest, type EngineRun } from '../engine/request-engine.js';
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
function isEmbeddingModel(model: { outputModalities: string[] }): boolean {
  return model.outputModalities.includes('embeddings');
}

/** POST /v1/embeddings: normalise the input, one engine call, OpenAI's embedding list. */
export function createEmbeddingsHandler(deps: EmbeddingsHandlerDeps) {
  return async function handleEmbeddings(
    request: FastifyRequest<{ Body: EmbeddingsRequest }>,
    reply: FastifyReply,
  ): Promise<void> {
    const body = request.body;
    await runEmbeddings(deps, request, reply, body, (result, candidate, usage, headers) =>
      reply.headers(headers).send(renderEmbeddings(result, candidate, body.encoding_format === 'base64', usage)),
    );
  };
}

/** One embeddings request on the engine (any surface: OpenAI's, Gemini's embedContent); `render` sends the answer. */
export async function runEmbeddings(
  deps: EmbeddingsHandlerDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  body: EmbeddingsRequest,
  render: (result: EmbeddingResult, candidate: RouteCandidate, usage: Usage, headers: Record<string, string>) => void,
): Promise<void> {
  const input = normalizeEmbeddingInput(body);
  // Admission meters this chat-shaped view: the input as one user message, one output token.
  const routed = admissionRequestFor(body, input);
  await runRequest(deps, request, reply, {
    routed: { ...body, messages: routed.messages, max_tokens: routed.max_tokens } as ChatCompletionRequest,
    streamed: false,
    eligible: (planned) => {
      const candidates = planned.filter((candidate) => isEmbeddingModel(candidate.model));
      if (candidates.length === 0)
        throw new InvalidRequestError(
          `The model '${body.model}' does not create embeddings. Models that do list "embeddings" in output_modalities on /v1/models.`,
          'model',
          'model_not_embedding',
        );
      return candidates;
    },
    open: (run) => openEmbeddings(deps, input, run),
    async render({ candidate, result }, run, headers) {
      const { outcome } = run;
      const promptTokens = result.promptTokens ?? estimateEmbeddingTokens(input);
      const usage: Usage = { prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens };
      outcome.usage = usage;
      outcome.timeToFirstTokenMs = deps.clock.now() - outcome.startedAt;
      // With `cost` and `cost_details` when asked (priced now: the exchange is over).
      render(result, candidate, run.answerUsage(usage) ?? usage, headers);
    },
  });
}

/** Embeds on the run's candidates (fallback, retries); the whole exchange happens inside the attempt. */
function openEmbeddings(
  deps: EmbeddingsHandlerDeps,
  input: EmbeddingInput,
  run: EngineRun,
): Promise<{ candidate: RouteCandidate; result: EmbeddingResult }> {
  const { controller, outcome } = run;
  return runWithFallback({
    candidates: run.candidates,
    routing: deps.routing,
    clock: deps.clock,
    controller,
    deadline: run.deadline,
    outcome,
    refuse: (candidate) => {
      const adapter = deps.embeddings.get(candidate.provider.type);
      if (!adapter) return 'skip';
      const reason = adapter.refuse(input, contextOf(candidate, deps.clock));
      return reason ? new InvalidRequestError(`Invalid 'input': ${reason}.`, 'input', 'unsupported_parameter') : null;
    },
    attempt: (candidate) =>
      recordAttempt(
        { clock: deps.clock, outcome, controller, log: run.request.log },
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
    usage: copyCost({ prompt_tokens: usage.prompt_tokens, total_tokens: usage.total_tokens }, usage),
  };
}

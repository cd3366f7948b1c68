import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyRecord } from '../../routing/api-key-record.js';
import { GatewayError, UpstreamError } from '../../shared/errors.js';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest, Usage } from '../../shared/openai-types.js';
import type { ChatHandlerDeps } from '../chat-completions-handler.js';
import type { OpenedAttempt } from '../../routing/open-with-fallback.js';
import { toUpstreamError } from '../../providers/upstream-client.js';
import { guardUpstreamError } from '../../providers/provider-secrets.js';
import type { CompletionOutcome } from '../../routing/completion-outcome.js';
import { conformChunk, conformCompletion } from '../conform-chat-answer.js';
import { requestTimeoutMs } from '../../routing/routing-runtime.js';
import { planRequest } from '../../routing/plan-request.js';
import { openWithFallback } from '../../routing/open-with-fallback.js';
import { RequestDeadline } from '../../routing/request-deadline.js';

/** How an endpoint that speaks another API (Responses, Anthropic Messages) answers a translated chat request. */
export interface ChatAnswerRenderer {
  /** A whole answer: send it in the endpoint's own format. */
  whole(completion: ChatCompletion, headers: Record<string, string>): Promise<void> | void;
  /**
   * A stream: consume the chunks and write the endpoint's own events. Headers are not sent yet.
   * A failure thrown by the chunk iterator must be rendered as the endpoint's stream error event
   * and recorded with `fail`; it is not rethrown.
   */
  stream(
    chunks: AsyncGenerator<ChatCompletionChunk>,
    headers: Record<string, string>,
    fail: (error: GatewayError) => void,
    /** The usage the upstream reported so far (final once the chunks are exhausted). */
    usage: () => Usage | null,
  ): Promise<void>;
}

/**
 * One chat request on the gateway's common path, for endpoints that translate into chat: routing
 * plan, admission (limits, credit hold), fallbacks and retries, one outcome for metering and
 * statistics. Errors before the answer starts are thrown (the route renders them in its envelope).
 */
export async function runChatRequest(
  deps: ChatHandlerDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  body: ChatCompletionRequest,
  renderer: ChatAnswerRenderer,
): Promise<void> {
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
  const controller = new AbortController();
  const onClientClose = () => {
    if (!reply.raw.writableFinished) {
      outcome.clientAborted = true;
      controller.abort(new UpstreamError(502, 'client_closed_request', 'The client closed the connection.'));
    }
  };
  reply.raw.once('close', onClientClose);
  let opened: OpenedAttempt | undefined;
  let deadline: RequestDeadline | undefined;
  try {
    const candidates = planRequest(body, key, deps.directory, deps.routing);
    if (deps.admission) await deps.admission.admit({ request: body, key, candidates, outcome, reply });
    deadline = new RequestDeadline(controller, requestTimeoutMs(deps.routing.settings, candidates), deps.clock);
    opened = await openWithFallback({
      ...deps,
      body,
      candidates,
      controller,
      deadline,
      outcome,
      requestId: request.id,
      log: request.log,
    });
    const { candidate } = opened;
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
      const fail = (error: GatewayError) => {
        outcome.status = error.status;
        outcome.errorCode = error.code;
      };
      const chunks = readChatChunks(opened, outcome, deps.clock, controller.signal);
      await renderer.stream(chunks, headers, fail, () => outcome.usage);
      return;
    }
    const completion = conformCompletion(
      opened.completion ??
        opened.adapter.parseResponse(new Uint8Array(await opened.response.body.arrayBuffer()), opened.context),
    );
    outcome.usage = (completion.usage as Usage | undefined) ?? null;
    outcome.outputCharacters = completion.choices.reduce(
      (sum, choice) => sum + (choice.message?.content?.length ?? 0),
      0,
    );
    outcome.timeToFirstTokenMs = deps.clock.now() - startedAt;
    await renderer.whole(completion, headers);
  } catch (error) {
    const gatewayError =
      error instanceof GatewayError
        ? error
        : opened
          ? guardUpstreamError(
              toUpstreamError(error, opened.candidate.provider, controller.signal),
              opened.candidate.provider,
            )
          : null;
    outcome.status = gatewayError?.status ?? 500;
    outcome.errorCode = gatewayError?.code ?? 'internal_error';
    if (outcome.attempts.length > 0 && !reply.raw.headersSent)
      reply.header('x-gateway-attempts', String(outcome.attempts.length));
    throw gatewayError ?? error;
  } finally {
    deadline?.clear();
    outcome.latencyMs = deps.clock.now() - startedAt;
    reply.raw.removeListener('close', onClientClose);
    for (const observer of deps.observers) observer.onCompletion(outcome);
  }
}

/**
 * The upstream stream as conformed OpenAI chunks; usage goes to the outcome (not yielded).
 * Throws a GatewayError when the upstream fails or stops before saying the answer is complete.
 */
async function* readChatChunks(
  opened: OpenedAttempt,
  outcome: CompletionOutcome,
  clock: ChatHandlerDeps['clock'],
  signal: AbortSignal,
): AsyncGenerator<ChatCompletionChunk> {
  const decoder = opened.adapter.createStreamDecoder(opened.context);
  let done = false;
  let finishSeen = false;
  const take = function* (events: ReturnType<typeof decoder.push>) {
    for (const event of events) {
      if (event.type === 'chunk') {
        if (outcome.timeToFirstTokenMs === null) outcome.timeToFirstTokenMs = clock.now() - outcome.startedAt;
        for (const choice of event.chunk.choices) {
          if (choice.finish_reason) finishSeen = true;
          const delta = choice.delta;
          if (typeof delta.content === 'string') outcome.outputCharacters += delta.content.length;
          if (typeof delta.reasoning === 'string') outcome.outputCharacters += delta.reasoning.length;
          for (const call of delta.tool_calls ?? []) outcome.outputCharacters += call.function?.arguments?.length ?? 0;
        }
        yield conformChunk(event.chunk);
      } else if (event.type === 'usage') {
        outcome.usage = event.usage;
      } else {
        done = true;
      }
    }
  };
  try {
    for await (const bytes of opened.response.body) {
      // After the end the answer is complete; read on to the body's end rather than destroying it mid-read.
      if (done) continue;
      yield* take(decoder.push(bytes as Uint8Array));
    }
    if (!done) yield* take(decoder.end());
    if (!done && !finishSeen) {
      throw new UpstreamError(
        502,
        'upstream_stream_interrupted',
        `${opened.candidate.provider.name} closed the stream before the answer was complete.`,
      );
    }
  } catch (error) {
    throw guardUpstreamError(
      error instanceof GatewayError ? error : toUpstreamError(error, opened.candidate.provider, signal),
      opened.candidate.provider,
    );
  } finally {
    if (!opened.response.body.destroyed) opened.response.body.destroy();
  }
}

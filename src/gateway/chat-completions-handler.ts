import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyRecord } from '../routing/api-key-record.js';
import { GatewayError, UpstreamError } from '../shared/errors.js';
import type { ChatCompletionRequest, Usage } from '../shared/openai-types.js';
import type { ProviderRegistry } from '../providers/provider-registry.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import type { ModelDirectory } from '../routing/model-directory.js';
import { validateChatRequest } from './validate-chat-request.js';
import { toUpstreamError, type UpstreamClient } from '../providers/upstream-client.js';
import { guardUpstreamError } from '../providers/provider-secrets.js';
import type { CompletionObserver, CompletionOutcome } from '../routing/completion-outcome.js';
import { streamCompletion } from './stream-completion.js';
import { conformCompletion } from './conform-chat-answer.js';
import type { RoutingRuntime } from '../routing/routing-runtime.js';
import { requestTimeoutMs } from '../routing/routing-runtime.js';
import { planRequest } from '../routing/plan-request.js';
import { openWithFallback, type OpenedAttempt } from '../routing/open-with-fallback.js';
import { RequestDeadline } from '../routing/request-deadline.js';

export { isRetriable } from '../routing/open-with-fallback.js';
import type { RequestAdmission } from './request-admission.js';

export interface ChatHandlerDeps {
  directory: ModelDirectory;
  registry: ProviderRegistry;
  upstream: UpstreamClient;
  clock: Clock;
  ids: IdGenerator;
  observers: CompletionObserver[];
  routing: RoutingRuntime;
  /** Limits, quotas and credit holds (metering), checked before the request is sent. */
  admission?: RequestAdmission;
  /** server.stream_write_stall_ms: a stream whose client takes nothing for this long is cut. */
  writeStallMs?: number;
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
        await streamCompletion({
          request: body,
          reply,
          opened,
          headers,
          outcome,
          signal: controller.signal,
          clock: deps.clock,
          requestId: request.id,
          writeStallMs: deps.writeStallMs,
        });
        return;
      }
      const completion = conformCompletion(
        opened.completion ??
          opened.adapter.parseResponse(new Uint8Array(await response.body.arrayBuffer()), opened.context),
      );
      outcome.usage = (completion.usage as Usage | undefined) ?? null;
      outcome.outputCharacters = completion.choices.reduce(
        (sum, choice) => sum + (choice.message?.content?.length ?? 0),
        0,
      );
      outcome.timeToFirstTokenMs = deps.clock.now() - startedAt;
      reply.headers(headers).send(completion);
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
  };
}

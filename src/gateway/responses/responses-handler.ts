import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyRecord } from '../../routing/api-key-record.js';
import { GatewayError, NotFoundError } from '../../shared/errors.js';
import type { ChatHandlerDeps } from '../chat-completions-handler.js';
import { runChatRequest } from '../chat-core/run-chat-request.js';
import { SseEventWriter } from '../sse-events.js';
import { nativeSupport } from '../engine/open-native.js';
import {
  UNSUPPORTED_PARAMS_REQUEST_HEADER,
  policyFor,
  translateForPolicy,
  untranslatedChat,
} from '../engine/dropped-params.js';
import { responsesToChat, type ChatTranslation } from './responses-to-chat.js';
import { assistantTurnOf, chatToResponse, type ResponseMeta } from './chat-to-response.js';
import { ResponsesStreamTranslator } from './responses-stream-translator.js';
import type { ResponseStore } from './response-store.js';
import type { ResponseObject, ResponsesRequest } from './responses-types.js';
import type { Static } from '@sinclair/typebox';
import type { ResponseIdParamsSchema, ResponsesBody } from './responses-request-schema.js';
import type { ChatMessage } from '../../shared/openai-types.js';

export interface ResponsesHandlerDeps extends ChatHandlerDeps {
  responses: ResponseStore;
}

function keyOf(request: FastifyRequest): ApiKeyRecord | null {
  return (request as FastifyRequest & { apiKey?: ApiKeyRecord }).apiKey ?? null;
}

/**
 * POST /v1/responses: forwarded as it is to endpoints that serve the Responses API (OpenAI, Azure
 * OpenAI), translated onto chat for the others; one engine either way.
 */
export function createResponsesHandler(deps: ResponsesHandlerDeps) {
  return async function handleResponses(
    request: FastifyRequest<{ Body: ResponsesBody }>,
    reply: FastifyReply,
  ): Promise<void> {
    const body: ResponsesRequest = request.body;
    const key = keyOf(request);
    let previous: ChatMessage[] | null = null;
    // An id the gateway did not store may be one a Responses endpoint stored (a native answer):
    // only such endpoints can continue it.
    let storedUpstream = false;
    if (body.previous_response_id) {
      // A key only continues its own user's responses; another user's id reads as unknown.
      const stored = key ? await deps.responses.find(key.userId, body.previous_response_id) : null;
      if (stored) previous = stored.conversation;
      else storedUpstream = true;
    }
    const previousNotFound = () =>
      new NotFoundError(
        `Previous response with id '${body.previous_response_id}' not found.`,
        'previous_response_not_found',
        'previous_response_id',
      );
    const strict = policyFor(deps.unsupportedParams, request.headers[UNSUPPORTED_PARAMS_REQUEST_HEADER]) === 'refuse';
    const { translation, ...refusals } = translateForPolicy<ChatTranslation>(
      (strict) => responsesToChat(body, previous, { strict }),
      strict,
      () => ({
        chat: untranslatedChat(body.model, body, body.stream === true),
        conversation: [],
        warnings: [],
        dropped: [],
        namespaces: new Map(),
      }),
    );
    // A conversation the gateway stored continues on the translated path; a fresh one may go native.
    const native = previous
      ? undefined
      : {
          call: {
            api: 'openai-responses' as const,
            body: body as Record<string, unknown>,
            stream: body.stream === true,
            clientHeaders: {},
          },
          errorEvent: (error: GatewayError) =>
            `event: error\ndata: ${JSON.stringify({ type: 'error', code: error.code, message: error.message, param: error.param })}\n\n`,
        };
    const store = body.store !== false;
    const meta: ResponseMeta = {
      id: deps.ids.next('resp_'),
      createdAt: Math.floor(deps.clock.now() / 1000),
      model: body.model,
      request: body,
      store,
      itemId: (prefix) => deps.ids.next(prefix),
      namespaces: translation.namespaces,
    };
    const keep = async (response: ResponseObject) => {
      if (!store || !key) return;
      const turn = assistantTurnOf(response.output);
      await deps.responses.save({
        userId: key.userId,
        keyId: key.id,
        response,
        conversation: turn ? [...translation.conversation, turn] : translation.conversation,
        now: deps.clock.now(),
      });
    };
    const warn = (headers: Record<string, string>) => {
      if (translation.warnings.length === 0) return headers;
      const existing = headers['x-gateway-warnings'];
      return { ...headers, 'x-gateway-warnings': [existing, ...translation.warnings].filter(Boolean).join('; ') };
    };

    await runChatRequest(
      deps,
      request,
      reply,
      translation.chat,
      {
        async whole(completion, headers) {
          meta.model = completion.model;
          const response = chatToResponse(completion, meta);
          await keep(response);
          reply.headers(warn(headers)).send(response);
        },
        async stream(chunks, headers, fail, usage) {
          meta.model = headers['x-gateway-model'] ?? meta.model;
          const translator = new ResponsesStreamTranslator(meta);
          const writer = new SseEventWriter(reply, { sequenceNumbers: true, writeStallMs: deps.writeStallMs });
          writer.open(request.id, warn(headers));
          await writer.write(translator.start());
          try {
            await chunks((chunk) => writer.write(translator.push(chunk)));
            const { events, response } = translator.finish(usage());
            await keep(response);
            await writer.write(events);
            writer.end();
          } catch (error) {
            const gatewayError =
              error instanceof GatewayError
                ? error
                : new GatewayError(500, 'server_error', 'internal_error', 'The stream failed.');
            fail(gatewayError);
            if (reply.raw.destroyed) return writer.destroy();
            await writer.write(translator.fail(gatewayError));
            writer.end();
          }
        },
      },
      {
        dropped: translation.dropped,
        optionalSearchParam: translation.optionalSearchParam,
        ...refusals,
        affinityKey: typeof body.prompt_cache_key === 'string' ? body.prompt_cache_key : null,
        eligible: storedUpstream
          ? (candidates) => {
              const natives = candidates.filter((each) => nativeSupport(deps.registry, 'openai-responses', each));
              if (natives.length === 0) throw previousNotFound();
              return natives;
            }
          : undefined,
      },
      native,
    );
  };
}

/** GET /v1/responses/{id}: a stored response of the key's user. */
export function createGetResponseHandler(deps: Pick<ResponsesHandlerDeps, 'responses'>) {
  return async function getResponse(
    request: FastifyRequest<{ Params: Static<typeof ResponseIdParamsSchema> }>,
  ): Promise<ResponseObject> {
    const { id } = request.params;
    const key = keyOf(request);
    const stored = key ? await deps.responses.find(key.userId, id) : null;
    if (!stored) throw new NotFoundError(`No response with id '${id}' found.`, 'response_not_found', 'response_id');
    return stored.response;
  };
}

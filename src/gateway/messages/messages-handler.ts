import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../shared/errors.js';
import type { ChatHandlerDeps } from '../chat-completions-handler.js';
import { runChatRequest } from '../chat-core/run-chat-request.js';
import { SseEventWriter } from '../sse-events.js';
import { headersOf } from '../engine/client-headers.js';
import {
  UNSUPPORTED_PARAMS_REQUEST_HEADER,
  policyFor,
  translateForPolicy,
  untranslatedChat,
} from '../engine/dropped-params.js';
import { anthropicErrorBody } from './anthropic-envelope.js';
import { messagesToChat, type MessagesTranslation } from './messages-to-chat.js';
import { chatToMessage } from './chat-to-message.js';
import { MessagesStreamTranslator } from './messages-stream-translator.js';
import type { MessagesRequest } from './messages-types.js';
import type { MessagesBody } from './messages-request-schema.js';

/**
 * POST /v1/messages: Anthropic's Messages API on any model: forwarded as it is to Anthropic
 * endpoints, translated onto chat for the others.
 */
export function createMessagesHandler(deps: ChatHandlerDeps) {
  return async function handleMessages(
    request: FastifyRequest<{ Body: MessagesBody }>,
    reply: FastifyReply,
  ): Promise<void> {
    const body: MessagesRequest = request.body;
    // Used only for endpoints of another API; the engine refuses what was dropped under strict refusals.
    const strict = policyFor(deps.unsupportedParams, request.headers[UNSUPPORTED_PARAMS_REQUEST_HEADER]) === 'refuse';
    const { translation: translated, ...refusals } = translateForPolicy<MessagesTranslation>(
      (strict) => messagesToChat(body, { strict }),
      strict,
      () => ({ chat: untranslatedChat(body.model, body, body.stream === true), dropped: [] }),
    );
    const { chat, ...translation } = translated;
    const native = {
      call: {
        api: 'anthropic-messages' as const,
        body: body as Record<string, unknown>,
        stream: body.stream === true,
        clientHeaders: headersOf(request, ['anthropic-version', 'anthropic-beta']),
      },
      errorEvent: (error: GatewayError) => `event: error\ndata: ${JSON.stringify(anthropicErrorBody(error))}\n\n`,
    };
    const id = deps.ids.next('msg_');
    await runChatRequest(
      deps,
      request,
      reply,
      chat,
      {
        whole(completion, headers) {
          reply.headers(headers).send(chatToMessage(completion, id));
        },
        async stream(chunks, headers, fail, usage) {
          const translator = new MessagesStreamTranslator(id, headers['x-gateway-model'] ?? body.model);
          const writer = new SseEventWriter(reply, { sequenceNumbers: false, writeStallMs: deps.writeStallMs });
          writer.open(request.id, headers);
          await writer.write(translator.start());
          try {
            await chunks((chunk) => writer.write(translator.push(chunk)));
            await writer.write(translator.finish(usage()));
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
      // Claude Code puts its session in metadata.user_id: one session, one endpoint, a warm cache.
      {
        ...translation,
        ...refusals,
        affinityKey: typeof body.metadata?.user_id === 'string' ? body.metadata.user_id : null,
      },
      native,
    );
  };
}

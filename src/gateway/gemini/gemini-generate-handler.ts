import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../shared/errors.js';
import type { ChatHandlerDeps } from '../chat-completions-handler.js';
import { runChatRequest } from '../chat-core/run-chat-request.js';
import {
  UNSUPPORTED_PARAMS_REQUEST_HEADER,
  policyFor,
  translateForPolicy,
  untranslatedChat,
} from '../engine/dropped-params.js';
import { clientStalled, openSseStream, waitForDrain } from '../sse.js';
import type { GeminiApiRequest } from './gemini-api-types.js';
import { geminiToChat, type GeminiTranslation } from './gemini-to-chat.js';
import { GeminiStreamTranslator, chatToGemini } from './chat-to-gemini.js';
import { geminiErrorBody } from './gemini-envelope.js';
import { checkGeminiRequest } from './check-gemini-request.js';

/** Gemini frames its stream as bare `data:` events with CRLF line ends. */
function geminiEvent(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\r\n\r\n`;
}

/**
 * POST /v1beta/models/{model}:generateContent and :streamGenerateContent: forwarded as they are
 * to Gemini endpoints, translated onto chat for the others; one engine either way.
 */
export async function handleGenerateContent(
  deps: ChatHandlerDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  model: string,
  stream: boolean,
): Promise<void> {
  checkGeminiRequest(request.body ?? {});
  const body = (request.body ?? {}) as GeminiApiRequest;
  const strict = policyFor(deps.unsupportedParams, request.headers[UNSUPPORTED_PARAMS_REQUEST_HEADER]) === 'refuse';
  const { translation, ...refusals } = translateForPolicy<GeminiTranslation>(
    (strict) => geminiToChat(model, body, { stream, strict }),
    strict,
    () => ({ chat: untranslatedChat(model, body, stream), dropped: [] }),
  );
  const responseId = deps.ids.next('');
  const native = {
    call: { api: 'gemini-generate-content' as const, body: body as Record<string, unknown>, stream, clientHeaders: {} },
    errorEvent: (error: GatewayError) => geminiEvent(geminiErrorBody(error)),
  };
  await runChatRequest(
    deps,
    request,
    reply,
    translation.chat,
    {
      whole(completion, headers) {
        reply.headers(headers).send(chatToGemini(completion, responseId));
      },
      async stream(chunks, headers, fail, usage) {
        const translator = new GeminiStreamTranslator(headers['x-gateway-model'] ?? model, responseId);
        const raw = openSseStream(reply, request.id, headers);
        // A promise only when the client must drain first (the chunk reader then holds the next chunk).
        const write = (payloads: unknown[]): void | Promise<void> => {
          if (payloads.length === 0 || raw.destroyed) return;
          if (raw.write(payloads.map(geminiEvent).join(''))) return;
          return waitForDrain(raw, deps.writeStallMs).then((result) => {
            if (result === 'stalled') throw clientStalled(deps.writeStallMs);
          });
        };
        try {
          await chunks((chunk) => write(translator.push(chunk)));
          await write(translator.finish(usage()));
          raw.end();
        } catch (error) {
          const gatewayError =
            error instanceof GatewayError
              ? error
              : new GatewayError(500, 'server_error', 'internal_error', 'The stream failed.');
          fail(gatewayError);
          if (raw.destroyed) return;
          const finished = translator.finish(null);
          raw.end(finished.map(geminiEvent).join('') + geminiEvent(geminiErrorBody(gatewayError)));
        }
      },
    },
    { dropped: translation.dropped, optionalSearchParam: translation.optionalSearchParam, ...refusals },
    native,
  );
}

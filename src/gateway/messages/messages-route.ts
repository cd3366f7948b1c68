import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { ChatHandlerDeps } from '../chat-completions-handler.js';
import { MessagesCountSchema, MessagesRequestSchema } from './messages-request-schema.js';
import { countTokensNatively, estimateInputTokens } from '../engine/count-tokens.js';
import { headersOf } from '../engine/client-headers.js';
import { messagesToChat } from './messages-to-chat.js';
import { typed } from '../../shared/typebox-type-provider.js';
import { createMessagesHandler } from './messages-handler.js';
import { anthropicErrorHandler } from './anthropic-envelope.js';
import type { GatewayError } from '../../shared/errors.js';

/** Anthropic clients send the key as x-api-key; the gateway's auth reads a bearer token. */
function acceptXApiKey(request: FastifyRequest, _reply: unknown, done: () => void): void {
  const key = request.headers['x-api-key'];
  if (!request.headers.authorization && typeof key === 'string' && key !== '')
    request.headers.authorization = `Bearer ${key}`;
  done();
}

export function registerMessagesRoute(
  app: FastifyInstance,
  deps: ChatHandlerDeps,
  authenticate: onRequestHookHandler,
  /** The app's error conversion (http/error-handler.ts), rendered here in Anthropic's envelope. */
  toGatewayError: (error: unknown) => GatewayError,
): void {
  typed(app).post('/v1/messages', {
    schema: {
      summary: 'Create a message (Anthropic Messages API)',
      description:
        "Any model of the gateway, called as Anthropic Messages: x-api-key or Bearer auth, anthropic-version accepted, system, text/image/tool_use/tool_result blocks, tools, tool_choice, stop_sequences, thinking; stream:true answers Anthropic events; errors in Anthropic's envelope.",
      tags: ['v1'],
      security: [{ bearerAuth: [] }],
      body: MessagesRequestSchema,
    },
    // x-api-key becomes a bearer token first; then the key is checked before the body is read.
    onRequest: [acceptXApiKey, authenticate],
    errorHandler: anthropicErrorHandler(toGatewayError),
    handler: createMessagesHandler(deps),
  });

  typed(app).post('/v1/messages/count_tokens', {
    schema: {
      summary: 'Count the tokens of a message (Anthropic Messages API)',
      description:
        "Native on models served by Anthropic (the provider counts); on others the gateway's o200k estimate. `?beta=true` is accepted as on /v1/messages.",
      tags: ['v1'],
      security: [{ bearerAuth: [] }],
      body: MessagesCountSchema,
    },
    onRequest: [acceptXApiKey, authenticate],
    errorHandler: anthropicErrorHandler(toGatewayError),
    handler: async (request, reply) => {
      const body = request.body;
      const counted = await countTokensNatively(deps, request, body.model, {
        api: 'anthropic-messages',
        action: 'count_tokens',
        body: body as Record<string, unknown>,
        clientHeaders: headersOf(request, ['anthropic-version', 'anthropic-beta']),
      });
      if (counted) return reply.type('application/json').send(Buffer.from(counted.bytes));
      return { input_tokens: estimateInputTokens(messagesToChat({ ...body, max_tokens: 1 }).chat) };
    },
  });
}

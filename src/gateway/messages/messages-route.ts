import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { ChatHandlerDeps } from '../chat-completions-handler.js';
import { MessagesRequestSchema } from './messages-request-schema.js';
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
  authenticate: onRequestAsyncHookHandler,
  /** The app's error conversion (http/error-handler.ts), rendered here in Anthropic's envelope. */
  toGatewayError: (error: unknown) => GatewayError,
): void {
  app.post('/v1/messages', {
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
}

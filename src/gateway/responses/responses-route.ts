import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { typed } from '../../shared/typebox-type-provider.js';
import { ResponseIdParamsSchema, ResponsesRequestSchema } from './responses-request-schema.js';
import { createGetResponseHandler, createResponsesHandler, type ResponsesHandlerDeps } from './responses-handler.js';

export function registerResponsesRoutes(
  app: FastifyInstance,
  deps: ResponsesHandlerDeps,
  authenticate: onRequestHookHandler,
): void {
  typed(app).post('/v1/responses', {
    schema: {
      summary: 'Create a response (OpenAI Responses API)',
      description:
        'Translated onto the chat path, so every model of the gateway answers: input items, instructions, function tools, text.format, previous_response_id (stored per user), stream:true with the documented response.* events. Built-in tools other than web_search are refused.',
      tags: ['v1'],
      security: [{ bearerAuth: [] }],
      body: ResponsesRequestSchema,
    },
    onRequest: authenticate,
    handler: createResponsesHandler(deps),
  });
  typed(app).get('/v1/responses/:id', {
    schema: {
      summary: 'Retrieve a stored response',
      description: 'Only responses created with store (the default) by a key of the same user.',
      tags: ['v1'],
      security: [{ bearerAuth: [] }],
      params: ResponseIdParamsSchema,
    },
    onRequest: authenticate,
    handler: createGetResponseHandler(deps),
  });
}

import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { typed } from '../shared/typebox-type-provider.js';
import { ChatCompletionRequestSchema } from '../shared/chat-request-schema.js';
import { createChatCompletionsHandler, type ChatHandlerDeps } from './chat-completions-handler.js';
import { refuseUnsupportedChatTools } from './refuse-unsupported-tools.js';

export function registerChatCompletionsRoute(
  app: FastifyInstance,
  deps: ChatHandlerDeps,
  authenticate: onRequestHookHandler,
): void {
  typed(app).post('/v1/chat/completions', {
    schema: {
      summary: 'Create a chat completion (OpenAI-compatible)',
      description:
        'Routes an OpenAI-format chat request to the provider serving the model. stream:true answers server-sent events of chat.completion.chunk objects ending with data: [DONE].',
      tags: ['v1'],
      security: [{ bearerAuth: [] }],
      body: ChatCompletionRequestSchema,
      // No response schema on purpose: answers pass provider fields through untouched.
    },
    // A callback hook: no promise per request for a check that is synchronous.
    preValidation: (request, _reply, done) => {
      try {
        refuseUnsupportedChatTools(request.body);
      } catch (error) {
        return done(error as Error);
      }
      done();
    },
    onRequest: authenticate,
    handler: createChatCompletionsHandler(deps),
  });
}

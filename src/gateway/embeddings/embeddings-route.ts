import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { typed } from '../../shared/typebox-type-provider.js';
import { EmbeddingsRequestSchema } from './embeddings-request-schema.js';
import { createEmbeddingsHandler, type EmbeddingsHandlerDeps } from './embeddings-handler.js';

export function registerEmbeddingsRoute(
  app: FastifyInstance,
  deps: EmbeddingsHandlerDeps,
  authenticate: onRequestHookHandler,
): void {
  typed(app).post('/v1/embeddings', {
    schema: {
      summary: 'Create embeddings (OpenAI-compatible)',
      description:
        'Embeds text (or token arrays, on OpenAI-compatible providers) with any model whose output_modalities include "embeddings": OpenAI-compatible providers, Azure OpenAI, Gemini (batchEmbedContents), Bedrock (Titan, Cohere) and Ollama (/api/embed). encoding_format base64 is float32 little-endian.',
      tags: ['v1'],
      security: [{ bearerAuth: [] }],
      body: EmbeddingsRequestSchema,
    },
    onRequest: authenticate,
    handler: createEmbeddingsHandler(deps),
  });
}

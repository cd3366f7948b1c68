import type { FastifyInstance } from 'fastify';
import type { ServerConfig } from '../config/gateway-config.js';
import type { CompletionObserver } from '../routing/completion-outcome.js';
import type { Store } from '../store/database.js';
import { registerEmbeddingsRoute } from '../gateway/embeddings/embeddings-route.js';
import { registerResponsesRoutes } from '../gateway/responses/responses-route.js';
import { registerMessagesRoute } from '../gateway/messages/messages-route.js';
import { registerGeminiRoutes } from '../gateway/gemini/gemini-route.js';
import { ResponseStore } from '../gateway/responses/response-store.js';
import { registerChatCompletionsRoute } from '../gateway/chat-completions-route.js';
import { registerModelsRoute } from '../gateway/models-route.js';
import { createEmbeddingRegistry } from '../providers/embedding-registry.js';
import { apiKeyAuth } from '../http/api-key-auth.js';
import { toGatewayError } from '../http/error-handler.js';
import { registerRankingsRoutes } from '../accounts/rankings/rankings-routes.js';
import type { CoreServices } from './core-services.js';

/** The /v1 surfaces (chat, Responses, Messages, embeddings, Gemini, models) and the public rankings. */
export function registerGatewayRoutes(
  app: FastifyInstance,
  core: CoreServices,
  server: ServerConfig,
  store: Store,
  extraObservers: readonly CompletionObserver[],
): void {
  const { directory, upstream, clock, ids, routing, metering, observability, keyCache } = core;
  const authenticate = apiKeyAuth(keyCache, clock);
  // Metering first: its settlement (a Redis round trip on PostgreSQL + Redis, which the answer's
  // end waits for) is sent before the other observers run, so their work overlaps the round
  // trip instead of delaying it (issue 31: ~20 µs of one request at a time); and an observer
  // that throws cannot keep a request from being charged.
  const observers = [
    ...(metering ? [metering] : []),
    ...extraObservers,
    ...observability.observers,
    routing.stats,
    core.catalogFeatures.recorder,
  ];
  const renderError = (error: unknown) => toGatewayError(error, server.bodyLimitBytes);
  const chatDeps = {
    directory,
    registry: core.registry,
    upstream,
    clock,
    ids,
    observers,
    routing,
    admission: metering ?? undefined,
    pricer: metering ?? undefined,
    includeCost: server.includeCost,
    writeStallMs: server.streamWriteStallMs,
    unsupportedParams: server.unsupportedParams,
    content: core.contentLog,
  };
  registerChatCompletionsRoute(app, chatDeps, authenticate);
  registerResponsesRoutes(app, { ...chatDeps, responses: new ResponseStore(store) }, authenticate);
  registerMessagesRoute(app, chatDeps, authenticate, renderError);
  const embeddingsDeps = {
    directory,
    embeddings: createEmbeddingRegistry(),
    upstream,
    clock,
    observers,
    routing,
    admission: metering ?? undefined,
    pricer: metering ?? undefined,
    includeCost: server.includeCost,
    content: core.contentLog,
  };
  registerEmbeddingsRoute(app, embeddingsDeps, authenticate);
  registerGeminiRoutes(app, { chat: chatDeps, embeddings: embeddingsDeps }, authenticate, renderError);
  registerModelsRoute(app, directory, apiKeyAuth(keyCache, clock, { optional: true }));
  registerRankingsRoutes(app, core.catalogFeatures.rankings);
}

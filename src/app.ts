import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { Logger } from 'pino';
import type { GatewayConfig } from './config/gateway-config.js';
import type { Store } from './store/database.js';
import { systemClock, type Clock } from './shared/clock.js';
import { newRequestId, randomIdGenerator, type IdGenerator } from './shared/ids.js';
import { createProviderRegistry, type ProviderRegistry } from './providers/provider-registry.js';
import { UpstreamClient } from './gateway/upstream-client.js';
import { ModelDirectory } from './gateway/model-directory.js';
import { ApiKeyCache, type ApiKeyCacheOptions } from './accounts/keys/api-key-cache.js';
import { registerErrorHandling } from './http/error-handler.js';
import { apiKeyAuth } from './http/api-key-auth.js';
import { registerChatCompletionsRoute } from './gateway/chat-completions-route.js';
import { registerModelsRoute } from './gateway/models-route.js';
import type { CompletionObserver } from './gateway/completion-outcome.js';
import { ErrorEnvelopeSchema } from './http/openapi-shared.js';
import type { Auth } from './accounts/auth/create-auth.js';
import { registerAuthRoutes, requireUser } from './http/account-auth.js';
import { Metering, type MeteringOptions } from './metering/metering.js';
import { registerUsageRoutes } from './accounts/usage/usage-routes.js';

export interface AppDeps {
  config: GatewayConfig;
  store: Store;
  logger: Logger;
  clock?: Clock;
  ids?: IdGenerator;
  registry?: ProviderRegistry;
  upstream?: UpstreamClient;
  observers?: CompletionObserver[];
  keyCacheOptions?: ApiKeyCacheOptions;
  /** Accounts (better-auth); the account interface is mounted when present. */
  auth?: Auth;
  /** Metering, limits and credits (on by default); false turns it off (benchmarks compare both). */
  metering?: MeteringOptions | false;
}

export interface GatewayApp {
  app: FastifyInstance;
  keyCache: ApiKeyCache;
  directory: ModelDirectory;
  /** null when built with metering: false. */
  metering: Metering | null;
  /** Stops background work and flushes pending writes; the caller closes the store. */
  close(): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The composition root: every dependency comes in through `deps`; nothing is a module singleton. */
export async function buildApp(deps: AppDeps): Promise<GatewayApp> {
  const { config, store, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const ids = deps.ids ?? randomIdGenerator;
  const registry = deps.registry ?? createProviderRegistry();
  const upstream = deps.upstream ?? new UpstreamClient();
  const directory = new ModelDirectory(config);
  const keyCache = new ApiKeyCache(store, clock, logger, deps.keyCacheOptions);
  await keyCache.start();
  const metering = deps.metering === false ? null : new Metering({ config, store, logger, clock, ids, directory, options: deps.metering });
  await metering?.start();

  const app = Fastify({
    loggerInstance: logger as unknown as FastifyBaseLogger,
    // One log line per request would be the hot path's biggest cost; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.server.bodyLimitBytes,
    // Honour a caller's x-request-id when it is sane, so traces join up across services.
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : newRequestId();
    },
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true },
  });

  // Bodies: strict types and ranges, unknown parameters kept (passed through). Query strings: coerced.
  const bodyAjv = new Ajv({ coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false, verbose: true, strict: false });
  const queryAjv = new Ajv({ coerceTypes: 'array', removeAdditional: false, useDefaults: true, allErrors: false, verbose: true, strict: false });
  addFormats.default(bodyAjv);
  addFormats.default(queryAjv);
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv.compile(schema) : queryAjv.compile(schema)));

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'LLM Gateway', version: '0.1.0', description: 'OpenAI-compatible gateway and account service.' },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key, sk-gw-…' } } },
    },
  });
  app.addSchema(ErrorEnvelopeSchema);
  registerErrorHandling(app, config.server.bodyLimitBytes);

  const authenticate = apiKeyAuth(keyCache, clock);
  const authenticateOptional = apiKeyAuth(keyCache, clock, { optional: true });
  const observers = [...(deps.observers ?? []), ...(metering ? [metering] : [])];
  registerChatCompletionsRoute(app, { directory, registry, upstream, clock, ids, observers, admission: metering ?? undefined }, authenticate);
  registerModelsRoute(app, directory, authenticateOptional);
  if (deps.auth) {
    registerAuthRoutes(app, deps.auth, config.server.publicUrl);
    const signedIn = requireUser(deps.auth);
    // Account features register here, each with its own route file under accounts/<feature>/.
    registerUsageRoutes(app, { store, clock, metering }, signedIn);
    app.get('/api-account/user/me', { schema: { summary: 'The signed-in user', tags: ['account'] }, preHandler: signedIn }, async (request) => request.user);
  }
  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  return {
    app,
    keyCache,
    directory,
    metering,
    async close() {
      await app.close();
      // After the server stopped: every finished request has queued its usage event by now.
      await metering?.stop();
      await keyCache.stop();
      await upstream.close();
    },
  };
}

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
import { UpstreamClient } from './providers/upstream-client.js';
import { ModelDirectory } from './routing/model-directory.js';
import type { CompletionObserver } from './routing/completion-outcome.js';
import { registerCors } from './http/cors.js';
import { registerEmbeddingsRoute } from './gateway/embeddings/embeddings-route.js';
import { registerResponsesRoutes } from './gateway/responses/responses-route.js';
import { registerMessagesRoute } from './gateway/messages/messages-route.js';
import { registerGeminiRoutes } from './gateway/gemini/gemini-route.js';
import { ResponseStore } from './gateway/responses/response-store.js';
import { createEmbeddingRegistry } from './providers/embedding-registry.js';
import { parseRoutingSettings } from './routing/routing-config.js';
import { createRoutingRuntime, type RoutingRuntime } from './routing/routing-runtime.js';
import { configRoutingTemplates } from './routing/routing-templates.js';
import { registerChatCompletionsRoute } from './gateway/chat-completions-route.js';
import { registerModelsRoute } from './gateway/models-route.js';
import { ApiKeyCache, type ApiKeyCacheOptions } from './keys/api-key-cache.js';
import { localAnnouncer, startRedisAnnouncer } from './keys/key-change-broadcast.js';
import { loadCatalogData } from './catalog/load-catalog-data.js';
import { routableCatalogModels } from './catalog/routable-catalog-models.js';
import { ModelCatalog } from './catalog/model-catalog.js';
import { UsageStatsRecorder } from './statistics/usage-stats-recorder.js';
import { UsageStatsService } from './statistics/usage-stats-service.js';
import { statsCacheMs } from './statistics/usage-stats-settings.js';
import { loadBenchmarkData } from './rankings/benchmark-data.js';
import { RankingsService } from './rankings/rankings-service.js';
import { Metering, type MeteringOptions } from './metering/metering.js';
import { createPurchaseLedger } from './credits/purchase-ledger.js';
import { registerBilling } from './billing/register-billing.js';
import { choosePaymentProvider, parseBillingConfig } from './billing/billing-config.js';
import type { StripeSettings } from './billing/stripe-payment-provider.js';
import type { Auth } from './users/create-auth.js';
import { registerErrorHandling, toGatewayError } from './http/error-handler.js';
import { answerClientError, renderFrameworkError } from './http/framework-errors.js';
import { registerJsonBodyParser } from './http/json-body-parser.js';
import { apiKeyAuth } from './http/api-key-auth.js';
import { requireUser } from './http/account-auth.js';
import { ErrorEnvelopeSchema } from './http/openapi-shared.js';
import { closeQueryStrings } from './http/closed-query-strings.js';
import { accountRoutes } from './accounts/account-routes.js';
import { startBalanceAlerts, type AlertMailer, type BalanceAlertDeps } from './credits/balance-alerts.js';
import { withAuthPaths } from './accounts/auth-openapi.js';
import { registerRankingsRoutes } from './accounts/rankings/rankings-routes.js';
import { ApiKeySchema } from './accounts/keys/api-key-schemas.js';
import { randomBytes } from 'node:crypto';
import { Observability, type ObservabilityOptions } from './observability/observability.js';
import type { ReadinessCheck } from './observability/health-routes.js';
import { migrationsCheck, settlementCheck, storeCheck } from './observability/readiness-checks.js';
import { registerConsoleStatic } from './http/console-static.js';
import { registerPasswordResetPage } from './http/password-reset-page.js';
import { originCheck } from './http/origin-check.js';
import { registerDefaultContentSecurityPolicy } from './http/page-security-headers.js';
import { acceptEmptyJsonBodies } from './http/empty-json-body.js';
import { parseAuthSettings, type AuthSettings } from './users/auth-settings.js';
import { InvitationService } from './users/invitations.js';
import { MemorySignInLimiter, type SignInLimiter } from './users/sign-in-limiter.js';
import { RedisSignInLimiter } from './users/redis-sign-in-limiter.js';
import { PasswordResetRequests } from './users/password-reset-requests.js';
import { DEFAULT_REDIS_KEY_PREFIX } from './store/open-redis.js';
import { openRedisClient, redisUrlPassword, type RedisClient } from './store/redis-client.js';
import { allProviderSecrets } from './providers/provider-secrets.js';
import { logScrubber } from './shared/logger.js';

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
  /** The installation's secret (signs document links); random per process when absent. */
  secret?: string;
  /** Stripe settings (STRIPE_SECRET_KEY); without them only `billing.payment_provider: sandbox` takes payments. */
  stripe?: StripeSettings;
  /** Running under NODE_ENV=production (stricter defaults); read from process.env when absent. */
  production?: boolean;
  /** Routing pieces to replace (tests: a fake breaker store, sleep, random). */
  routing?: { overrides?: Partial<RoutingRuntime> };
  /**
   * The installation's Redis, shared by breakers, limits and key invalidation. Absent: buildApp
   * opens one from config.redisUrl (and closes it); null: no Redis (per-instance state).
   */
  redis?: RedisClient | null;
  /** Prefix of every Redis key and channel (default `gateway:`; tests use a random one). */
  redisKeyPrefix?: string;
  /** Metering, limits and credits (on by default); false turns it off (benchmarks compare both). */
  metering?: MeteringOptions | false;
  /** Trace exporter override (tests) and environment for the OTEL_* variables. */
  observability?: ObservabilityOptions;
  /** Readiness checks beyond the store's own (the composition root adds Redis when configured). */
  readinessChecks?: ReadinessCheck[];
  /** The built web console to serve at / (default: console/dist of this checkout). */
  consoleDir?: string;
  /** Sends balance alert mails (the runtime's mailer); without one, mail alerts are logged as skipped. */
  mailer?: AlertMailer;
  /** Balance alerts: how often balances are checked (default 30 s), and test hooks for webhooks. */
  balanceAlerts?: Partial<Pick<BalanceAlertDeps, 'fetch' | 'sleep' | 'webhookBaseDelayMs'>> & {
    intervalMs?: number;
    allowHttpWebhooks?: boolean;
  };
}

/** The catalog and the statistics built on finished requests. */
export interface CatalogFeatures {
  catalog: ModelCatalog;
  recorder: UsageStatsRecorder;
  stats: UsageStatsService;
  rankings: RankingsService;
}

export interface GatewayApp {
  app: FastifyInstance;
  keyCache: ApiKeyCache;
  directory: ModelDirectory;
  /** Catalog, statistics recorder and rankings (public routes). */
  catalogFeatures: CatalogFeatures;
  /** null when built with metering: false. */
  metering: Metering | null;
  /** Metrics, traces and health checks. */
  observability: Observability;
  /** Sign-up mode and limits (`auth:`), and the invitations an admin API issues through. */
  accounts: {
    settings: AuthSettings;
    invitations: InvitationService;
    /** Who takes payments: stripe, sandbox or none (null without accounts). */
    paymentProvider: string | null;
  };
  /**
   * Puts a reloaded config's providers, models and routing settings into service at once; throws,
   * changing nothing, when they cannot be applied. Returns a one-line summary.
   */
  reloadConfig(next: GatewayConfig): string;
  /** Stops background work and flushes pending writes; the caller closes the store. */
  close(): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** server.trust_proxy as a hop count: the nearest `hops` proxies are believed (Fastify types take it as a function). */
function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

/** The password in a postgres:// or redis:// (or redis+cluster://) URL, if any. */
function passwordOf(url: string | undefined): string | undefined {
  if (url !== undefined && redisUrlPassword(url) !== null) return redisUrlPassword(url) ?? undefined;
  if (!url || !/^[a-z]+:\/\//.test(url)) return undefined;
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

/** The composition root: every dependency comes in through `deps`; nothing is a module singleton. */
export async function buildApp(deps: AppDeps): Promise<GatewayApp> {
  const { config, store, logger } = deps;
  const installationSecret = deps.secret ?? randomBytes(32).toString('base64url');
  // Whatever is logged from here on is scrubbed of the configured credentials and signing material.
  const secretsOf = (next: GatewayConfig) => [
    ...allProviderSecrets(next.providers),
    installationSecret,
    deps.stripe?.secretKey,
    deps.stripe?.webhookSecret,
    passwordOf(next.databaseUrl),
    passwordOf(next.redisUrl),
  ];
  logScrubber(logger)?.replace(secretsOf(config));
  const clock = deps.clock ?? systemClock;
  const production = deps.production ?? process.env.NODE_ENV === 'production';
  // Settings that can refuse to start are read before anything is started (nothing to stop on failure).
  const authSettings = parseAuthSettings(config.sections.auth, production);
  const paymentProvider = choosePaymentProvider(parseBillingConfig(config.sections.billing), config.sections.billing, {
    stripeConfigured: deps.stripe !== undefined,
    production,
  });
  const ids = deps.ids ?? randomIdGenerator;
  const registry = deps.registry ?? createProviderRegistry();
  const upstream = deps.upstream ?? new UpstreamClient();
  // Catalog models become routable when a configured provider serves them (CONTRACT §1).
  const catalogData = loadCatalogData();
  const directory = new ModelDirectory(config, routableCatalogModels(catalogData, config));
  // Infrastructure comes in through deps; what buildApp opens itself, it closes in close().
  const ownsRedis = deps.redis === undefined && config.redisUrl !== undefined;
  const redis = (ownsRedis ? openRedisClient(config.redisUrl!, config.redis) : deps.redis) ?? undefined;
  const redisKeyPrefix = deps.redisKeyPrefix ?? DEFAULT_REDIS_KEY_PREFIX;
  const keyCache = new ApiKeyCache(store, clock, logger, deps.keyCacheOptions);
  // The `routing:` section is parsed here, once: routing and the key API read the same templates.
  const routingSettings = parseRoutingSettings(config);
  const routing = createRoutingRuntime({
    settings: routingSettings,
    clock,
    redis,
    redisKeyPrefix,
    overrides: deps.routing?.overrides,
  });
  await keyCache.start();
  const observability = await Observability.create(config, deps.observability);
  const metrics = observability.metrics;
  const metering =
    deps.metering === false
      ? null
      : new Metering({
          config,
          store,
          logger,
          clock,
          ids,
          directory,
          redis,
          redisKeyPrefix,
          options: deps.metering,
          onUsage: metrics ? (event) => metrics.onUsage(event) : undefined,
        });
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
    // request.ip and request.protocol/host: the socket peer unless server.trust_proxy names the proxy.
    trustProxy:
      typeof config.server.trustProxy === 'number' ? trustHops(config.server.trustProxy) : config.server.trustProxy,
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true },
    // A request (headers and body) must arrive within the timeout, or the connection is answered
    // 408 and closed: a trickled body cannot hold a connection. Node checks at this interval.
    requestTimeout: config.server.requestTimeoutMs,
    http: {
      headersTimeout: config.server.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, config.server.requestTimeoutMs),
    },
    frameworkErrors: renderFrameworkError(config.server.bodyLimitBytes),
    clientErrorHandler: answerClientError(config.server.requestTimeoutMs),
  });

  // Bodies: strict types and ranges, unknown parameters kept (passed through). Query strings: coerced.
  const bodyAjv = new Ajv({
    coerceTypes: false,
    removeAdditional: false,
    useDefaults: true,
    allErrors: false,
    verbose: true,
    strict: false,
  });
  const queryAjv = new Ajv({
    coerceTypes: 'array',
    removeAdditional: false,
    useDefaults: true,
    allErrors: false,
    verbose: true,
    strict: false,
  });
  addFormats.default(bodyAjv);
  addFormats.default(queryAjv);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? bodyAjv.compile(schema) : queryAjv.compile(schema),
  );

  // Unknown query parameters are a 400 naming them on every account and rankings route; set before any route exists.
  app.addHook('onRoute', closeQueryStrings(['/api-account', '/rankings']));

  // A callback hook, not an async one: no promise and no extra microtask on every request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  observability.registerHooks(app);
  observability.watch({
    directory,
    health: routing.health,
    usageBacklog: metering ? () => metering.backlog : undefined,
    now: () => clock.now(),
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'LLM Gateway', version: '0.1.0', description: 'OpenAI-compatible gateway and account service.' },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key, sk-gw-…' },
          sessionAuth: {
            type: 'http',
            scheme: 'bearer',
            description:
              'A session token from POST /api-account/auth/sign-in/email (browsers: the HttpOnly session cookie instead)',
          },
        },
      },
    },
    // better-auth's routes are one catch-all in Fastify: their description is added by hand.
    transformObject: (document) => {
      const openapi = 'openapiObject' in document ? document.openapiObject : document.swaggerObject;
      if (!deps.auth) return openapi;
      return withAuthPaths(openapi as { paths?: Record<string, unknown> }) as typeof openapi;
    },
  });
  app.addSchema(ErrorEnvelopeSchema);
  registerErrorHandling(app, config.server.bodyLimitBytes);
  registerJsonBodyParser(app, config.server.maxJsonDepth);
  registerCors(app, config.server.corsOrigins);
  // Before any body is read: cookie-authenticated writes from foreign origins go no further.
  const originSettings = {
    publicUrl: config.server.publicUrl,
    publicUrlConfigured: config.server.publicUrlConfigured,
    corsOrigins: config.server.corsOrigins,
  };
  app.addHook('onRequest', originCheck(originSettings));
  app.addHook('onRequest', acceptEmptyJsonBodies);
  // Every HTML answer carries a Content-Security-Policy: its own page's, or the strictest.
  registerDefaultContentSecurityPolicy(app);

  // Statistics observe every finished request; the catalog, provider and rankings routes read them.
  const catalog = new ModelCatalog(catalogData, config, directory.list());
  const stats = new UsageStatsService(store, clock, statsCacheMs(config.sections.catalog));
  const recorder = new UsageStatsRecorder(store, clock, logger);
  recorder.start();
  const rankings = new RankingsService(store, stats, catalog, loadBenchmarkData());
  const catalogFeatures: CatalogFeatures = { catalog, recorder, stats, rankings };

  const authenticate = apiKeyAuth(keyCache, clock);
  const authenticateOptional = apiKeyAuth(keyCache, clock, { optional: true });
  const observers = [
    ...(deps.observers ?? []),
    ...observability.observers,
    routing.stats,
    recorder,
    ...(metering ? [metering] : []),
  ];
  const chatDeps = {
    directory,
    registry,
    upstream,
    clock,
    ids,
    observers,
    routing,
    admission: metering ?? undefined,
    pricer: metering ?? undefined,
    includeCost: config.server.includeCost,
    writeStallMs: config.server.streamWriteStallMs,
    unsupportedParams: config.server.unsupportedParams,
  };
  registerChatCompletionsRoute(app, chatDeps, authenticate);
  registerResponsesRoutes(app, { ...chatDeps, responses: new ResponseStore(store) }, authenticate);
  registerMessagesRoute(app, chatDeps, authenticate, (error) => toGatewayError(error, config.server.bodyLimitBytes));
  const embeddingsDeps = {
    directory,
    embeddings: createEmbeddingRegistry(),
    upstream,
    clock,
    observers,
    routing,
    admission: metering ?? undefined,
    pricer: metering ?? undefined,
    includeCost: config.server.includeCost,
  };
  registerEmbeddingsRoute(app, embeddingsDeps, authenticate);
  registerGeminiRoutes(app, { chat: chatDeps, embeddings: embeddingsDeps }, authenticate, (error) =>
    toGatewayError(error, config.server.bodyLimitBytes),
  );
  registerModelsRoute(app, directory, authenticateOptional);
  registerRankingsRoutes(app, rankings);

  // Key changes reach every instance's cache (Redis), or this one's only.
  const announcer = redis
    ? await startRedisAnnouncer({
        redis,
        channel: `${redisKeyPrefix}key-changes`,
        cache: keyCache,
        logger,
      })
    : localAnnouncer(keyCache);
  app.addHook('onClose', async () => announcer.close());

  const billing = deps.auth
    ? registerBilling(
        app,
        {
          store,
          ledger: createPurchaseLedger(store, clock),
          section: config.sections.billing,
          clock,
          ids,
          publicUrl: config.server.publicUrl,
          logger,
          secret: installationSecret,
          stripe: deps.stripe,
          paymentProvider,
        },
        requireUser(deps.auth),
      )
    : undefined;
  if (deps.auth) app.addSchema(ApiKeySchema);
  const invitations = new InvitationService(store.db, clock, ids, {
    publicUrl: config.server.publicUrl,
    ttlMs: authSettings.invitationTtlMs,
  });
  // Sign-in limits shared through Redis when there is one (a connection of their own), else per process.
  const signInLimiter: SignInLimiter =
    redis && deps.auth
      ? new RedisSignInLimiter(redis, authSettings.signInLimits, () => clock.now(), redisKeyPrefix, logger)
      : new MemorySignInLimiter(authSettings.signInLimits, () => clock.now());
  app.addHook('onClose', async () => signInLimiter.close());
  // Password-reset requests: the sign-in limiter's rule under their own keys and settings.
  const passwordResets = deps.auth
    ? new PasswordResetRequests(
        deps.auth,
        redis
          ? new RedisSignInLimiter(
              redis,
              authSettings.passwordResetLimits,
              () => clock.now(),
              redisKeyPrefix,
              logger,
              'password-reset',
            )
          : new MemorySignInLimiter(authSettings.passwordResetLimits, () => clock.now()),
        logger,
      )
    : undefined;
  if (passwordResets) app.addHook('onClose', async () => passwordResets.close());
  await app.register(accountRoutes, {
    prefix: '/api-account',
    store,
    clock,
    ids,
    publicUrl: config.server.publicUrl,
    // Accessors, not values: a config reload replaces these (CONVENTIONS 14).
    providers: () => config.providers,
    catalog,
    stats,
    rankings,
    templates: () => routing.settings.templates,
    isKnownModel: (modelId) => directory.get(modelId) !== undefined,
    announcer,
    metering,
    auth: deps.auth,
    authGuard: { store, settings: authSettings, invitations, limiter: signInLimiter },
    passwordResets,
    origins: originSettings,
    billing,
    allowHttpWebhooks: deps.balanceAlerts?.allowHttpWebhooks,
    async flushUsage() {
      await metering?.writer.flush();
      await recorder.flush();
    },
  });
  observability.registerRoutes(app, [
    storeCheck(store),
    migrationsCheck(store),
    ...(metering ? [settlementCheck(() => metering.settlementStalled())] : []),
    ...(deps.readinessChecks ?? []),
  ]);
  const { intervalMs: alertIntervalMs, allowHttpWebhooks: _allowHttp, ...alertHooks } = deps.balanceAlerts ?? {};
  const balanceAlerts = deps.auth
    ? startBalanceAlerts(
        { store, clock, ids, mailer: deps.mailer, ...alertHooks },
        alertIntervalMs ?? 30_000,
        (error) => logger.error({ err: error }, 'balance alert check failed'),
      )
    : null;
  if (deps.auth) registerPasswordResetPage(app);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await registerConsoleStatic(app, deps.consoleDir);

  return {
    app,
    keyCache,
    directory,
    catalogFeatures,
    metering,
    observability,
    accounts: { settings: authSettings, invitations, paymentProvider: billing?.billing.provider.name ?? null },
    reloadConfig(next) {
      // Everything is built before anything is swapped: a bad config leaves the running one whole.
      const nextDirectory = new ModelDirectory(next, routableCatalogModels(catalogData, next));
      const nextCatalog = new ModelCatalog(catalogData, next, nextDirectory.list());
      const settings = parseRoutingSettings(next);
      const templates = deps.routing?.overrides?.templates ?? configRoutingTemplates(settings.templates);
      directory.replaceWith(nextDirectory);
      // The catalog, provider and rankings routes, and through them the console's pages and its
      // playground's list, read these: everything derived from providers and models follows.
      catalog.replaceWith(nextCatalog);
      logScrubber(logger)?.replace(secretsOf(next));
      routing.settings = settings;
      routing.templates = templates;
      upstream.reconfigure(next.providers);
      config.providers = next.providers;
      config.models = next.models;
      config.sections.routing = next.sections.routing;
      return `${next.providers.length} providers, ${nextDirectory.list().length} routable models`;
    },
    async close() {
      await app.close();
      await balanceAlerts?.close();
      await observability.close();
      // After the server stopped: every finished request has queued its usage event by now.
      await metering?.stop();
      await recorder.stop();
      await keyCache.stop();
      await upstream.close();
      await routing.health.close();
      if (ownsRedis) redis?.disconnect();
    },
  };
}

import type { Logger } from 'pino';
import { buildApp, type AppDeps, type GatewayApp } from './app.js';
import type { GatewayConfig } from './config/gateway-config.js';
import { setHeapGrowthPercent } from './shared/heap-growth.js';
import { openStore, type Store } from './store/database.js';
import { migrateToLatest } from './store/migrate.js';
import type { Auth, AuthOptions } from './users/create-auth.js';
import { resolveAuthSecret } from './users/auth-secret.js';
import { authTablesStamp, lazyAuth } from './users/lazy-auth.js';
import { putSetting, readSetting } from './store/settings-repository.js';
import { systemClock } from './shared/clock.js';
import { openRedisClient, type RedisClient } from './store/redis-client.js';
import { stripeSettingsFromEnvironment } from './billing/stripe-payment-provider.js';
import { redisCheck } from './observability/readiness-checks.js';
import { ServiceStack } from './composition/service-stack.js';
import { parseMailSettings } from './users/mail-settings.js';
import { createMailer, type Mailer } from './users/mailer.js';

export interface Runtime {
  /** The config the runtime was opened with. */
  config: GatewayConfig;
  /** NODE_ENV=production: stricter defaults (sign-up by invitation, no sandbox payments). */
  environment: { production: boolean };
  store: Store;
  auth: Auth;
  /** The installation's secret (better-auth, signed links). */
  secret: string;
  /** Migrations applied by this call (ours and better-auth's). */
  applied: string[];
  /** Sends password-reset and email-change links (`mail:`); only a serving runtime has one. */
  mailer?: Mailer | null;
}

/** Opens the store named by the config, brings its schema up to date and sets up accounts. */
export async function openRuntime(
  config: GatewayConfig,
  env: Record<string, string | undefined> = process.env,
  options: { logger?: Logger } = {},
): Promise<Runtime> {
  // A serving runtime sends mail; a bad `mail:` section stops it before the store is touched.
  const mailSettings = options.logger ? parseMailSettings(config.sections.mail) : null;
  const store = openStore(config.databaseUrl, {
    poolSize: config.database.poolSize,
    connectTimeoutMs: config.database.connectTimeoutMs,
    statementTimeoutMs: config.database.statementTimeoutMs,
  });
  try {
    const { applied } = await migrateToLatest(store);
    const secret = await resolveAuthSecret(store, env, systemClock.now());
    const logger = options.logger;
    const mailer = mailSettings && logger ? createMailer(mailSettings, logger) : null;
    const authOptions: AuthOptions = {
      baseUrl: config.server.publicUrl,
      trustedOrigins: [config.server.publicUrl, ...config.server.corsOrigins],
      mailer: mailer ?? undefined,
      passwordResetTtlSeconds: mailSettings?.passwordResetTtlSeconds,
      onMailError: (error) => logger?.error({ err: error }, 'could not send a mail (password reset or email change)'),
    };
    const { auth, applied: authApplied } = await openAuth(store, secret, authOptions, logger);
    return {
      config,
      environment: { production: env.NODE_ENV === 'production' },
      store,
      auth,
      secret,
      applied: [...applied, ...authApplied],
      mailer,
    };
  } catch (error) {
    await store.destroy().catch(() => undefined);
    throw error;
  }
}

/** Where the stamp of better-auth's migrated tables is kept (settings table). */
const AUTH_TABLES_STAMP = 'auth_tables_stamp';

/**
 * Accounts for this runtime. A serving runtime (one with a logger) whose store says better-auth's
 * tables were migrated by these very packages and options gets accounts loaded on first use
 * (lazy-auth.ts: better-auth and zod are ~11 MB of heap a `/v1`-only gateway never uses); the
 * packages are still found at start, so a missing one fails here. Otherwise (a fresh store, an
 * upgrade, the CLI) better-auth is loaded now and its tables migrated, as before.
 */
async function openAuth(
  store: Store,
  secret: string,
  options: AuthOptions,
  logger: Logger | undefined,
): Promise<{ auth: Auth; applied: string[] }> {
  const stamp = authTablesStamp();
  const load = async () => (await import('./users/create-auth.js')).createAuth(store, secret, options);
  if (logger && (await readSetting(store.db, AUTH_TABLES_STAMP)) === stamp)
    return {
      auth: lazyAuth(load, (error) => logger.error({ err: error }, 'could not load accounts (better-auth)')),
      applied: [],
    };
  const { migrateAuthTables } = await import('./users/create-auth.js');
  const auth = await load();
  const applied = await migrateAuthTables(auth, store);
  await putSetting(store.db, AUTH_TABLES_STAMP, stamp, systemClock.now());
  return { auth, applied };
}

export interface StartedGateway extends GatewayApp {
  runtime: Runtime;
  /** REDIS_URL's Redis, opened here once and shared by every feature that needs it. */
  redis: RedisClient | null;
  url: string;
  /** The admin metrics URL when metrics.port is configured. */
  metricsUrl: string | null;
}

/**
 * Everything `gateway serve` does, reusable by tests and benchmarks. `beforeListen` runs once the
 * app is built and before the port opens (the first account), so nothing answers on the port
 * before start-up has finished.
 */
export async function startGateway(
  config: GatewayConfig,
  logger: Logger,
  overrides: Partial<AppDeps> = {},
  env: Record<string, string | undefined> = process.env,
  beforeListen?: (runtime: Runtime) => Promise<void>,
): Promise<StartedGateway> {
  setHeapGrowthPercent(config.server.heapGrowthPercent);
  const onStopError = (name: string, error: unknown) => logger.error({ err: error }, `stopping ${name} failed`);
  // The store, the Redis connections and the app on one stack: stopped in reverse, also when
  // start-up fails half-way (a failed migration, a beforeListen that throws, a port in use).
  const stack = new ServiceStack(onStopError, overrides.lifecycle);
  return stack.build(async () => {
    const runtime = await stack.start(
      'store',
      () => openRuntime(config, env, { logger }),
      (opened) => opened.store.destroy(),
    );
    await stack.adopt('mailer', runtime.mailer, (mailer) => mailer?.close?.());
    const redisUrl = config.redisUrl;
    // Readiness asks Redis on a connection of its own that never queues: a dead Redis answers at once.
    const readinessRedis = redisUrl
      ? await stack.start('readiness redis', () => connectedNow(openRedisClient(redisUrl, config.redis)), disconnect)
      : null;
    const redis = redisUrl
      ? await stack.start('redis', () => openRedisClient(redisUrl, config.redis), disconnect)
      : null;
    const gateway = await stack.start(
      'gateway',
      () =>
        buildApp({
          config,
          store: runtime.store,
          logger,
          auth: runtime.auth,
          secret: runtime.secret,
          stripe: stripeSettingsFromEnvironment(env),
          production: env.NODE_ENV === 'production',
          readinessChecks: readinessRedis ? [redisCheck(() => readinessRedis.ping())] : [],
          redis,
          mailer: runtime.mailer ?? undefined,
          ...overrides,
        }),
      (app) => app.close(),
    );
    await beforeListen?.(runtime);
    const url = await gateway.app.listen({ host: config.server.host, port: config.server.port });
    // Closed by the gateway's observability.
    const metricsUrl = await gateway.observability.startAdminServer();
    return { ...gateway, runtime, redis, url, metricsUrl, close: () => stack.stop() };
  });
}

/** Connected now: nothing is queued while disconnected, so a first ping would otherwise fail. */
function connectedNow(client: RedisClient): RedisClient {
  void client.connect().catch(() => undefined);
  return client;
}

function disconnect(client: RedisClient): void {
  client.disconnect();
}

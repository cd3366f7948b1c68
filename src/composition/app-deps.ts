import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { RedisClient } from '../store/redis-client.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { Store } from '../store/database.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import type { ProviderRegistry } from '../providers/provider-registry.js';
import type { UpstreamClient } from '../providers/upstream-client.js';
import type { ModelDirectory } from '../routing/model-directory.js';
import type { CompletionObserver } from '../routing/completion-outcome.js';
import type { RoutingRuntime } from '../routing/routing-runtime.js';
import type { ApiKeyCache, ApiKeyCacheOptions } from '../keys/api-key-cache.js';
import type { ModelCatalog } from '../catalog/model-catalog.js';
import type { UsageStatsRecorder } from '../statistics/usage-stats-recorder.js';
import type { UsageStatsService } from '../statistics/usage-stats-service.js';
import type { RankingsService } from '../rankings/rankings-service.js';
import type { Metering, MeteringOptions } from '../metering/metering.js';
import type { RequestContentLog } from '../metering/request-content-log.js';
import type { StripeSettings } from '../billing/stripe-payment-provider.js';
import type { Auth } from '../users/create-auth.js';
import type { BalanceAlertDeps } from '../credits/balance-alerts.js';
import type { AlertMailer } from '../credits/alert-delivery.js';
import type { Observability, ObservabilityOptions } from '../observability/observability.js';
import type { ReadinessCheck } from '../observability/health-routes.js';
import type { AuthSettings } from '../users/auth-settings.js';
import type { InvitationService } from '../users/invitations.js';
import type { StackListener } from './service-stack.js';

/** Everything the composition root is built from: nothing is a module singleton. */
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
  /** Sends alert mails (the runtime's mailer); without one, mail alerts are logged as skipped. */
  mailer?: AlertMailer;
  /** Balance and key spend alerts: how often they are checked (default 30 s), and test hooks for webhooks. */
  balanceAlerts?: Partial<Pick<BalanceAlertDeps, 'fetch' | 'sleep' | 'webhookBaseDelayMs'>> & {
    intervalMs?: number;
    allowHttpWebhooks?: boolean;
  };
  /** Hears each service start and stop by name (tests inject a start-up failure after any of them). */
  lifecycle?: StackListener;
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
  /** Kept request and answer bodies of keys with log_content on (writes, retention sweep). */
  contentLog: RequestContentLog;
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

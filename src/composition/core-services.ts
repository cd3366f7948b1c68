import type { GatewayConfig } from '../config/gateway-config.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { randomIdGenerator, type IdGenerator } from '../shared/ids.js';
import { createProviderRegistry, type ProviderRegistry } from '../providers/provider-registry.js';
import { UpstreamClient } from '../providers/upstream-client.js';
import { ModelDirectory } from '../routing/model-directory.js';
import { parseRoutingSettings } from '../routing/routing-config.js';
import { createRoutingRuntime, type RoutingRuntime } from '../routing/routing-runtime.js';
import { ApiKeyCache } from '../keys/api-key-cache.js';
import { localAnnouncer, startRedisAnnouncer, type KeyChangeAnnouncer } from '../keys/key-change-broadcast.js';
import { loadCatalogData } from '../catalog/load-catalog-data.js';
import type { CatalogData } from '../catalog/catalog-data.js';
import { routableCatalogModels } from '../catalog/routable-catalog-models.js';
import { ModelCatalog } from '../catalog/model-catalog.js';
import { UsageStatsRecorder } from '../statistics/usage-stats-recorder.js';
import { UsageStatsService } from '../statistics/usage-stats-service.js';
import { statsCacheMs } from '../statistics/usage-stats-settings.js';
import { loadBenchmarkData } from '../rankings/benchmark-data.js';
import { RankingsService } from '../rankings/rankings-service.js';
import { Metering } from '../metering/metering.js';
import { RequestContentLog, readRequestContentSettings } from '../metering/request-content-log.js';
import { startUsageMaintenance } from '../metering/usage-retention.js';
import { readUsageRetention } from '../metering/activity-settings.js';
import { Observability } from '../observability/observability.js';
import { DEFAULT_REDIS_KEY_PREFIX } from '../store/open-redis.js';
import { openRedisClient, type RedisClient } from '../store/redis-client.js';
import type { AppDeps, CatalogFeatures } from './app-deps.js';
import type { ServiceStack } from './service-stack.js';

/** Partitions are made months ahead and retention counts days: an hourly round is plenty. */
const USAGE_MAINTENANCE_INTERVAL_MS = 3_600_000;

/** The services every surface shares, each started once and stopped by the stack that started it. */
export interface CoreServices {
  clock: Clock;
  ids: IdGenerator;
  registry: ProviderRegistry;
  upstream: UpstreamClient;
  redis: RedisClient | undefined;
  redisKeyPrefix: string;
  catalogData: CatalogData;
  directory: ModelDirectory;
  routing: RoutingRuntime;
  keyCache: ApiKeyCache;
  observability: Observability;
  metering: Metering | null;
  /** Content logging (keys with log_content on): kept bodies, read by the activity page, swept by age. */
  contentLog: RequestContentLog;
  catalogFeatures: CatalogFeatures;
  announcer: KeyChangeAnnouncer;
}

/**
 * Starts the shared services in dependency order: Redis, the upstream client, routing (breakers),
 * the key cache, observability, metering, statistics, key-change broadcast. Each is pushed on
 * `stack` as it starts, so a failure further on stops exactly what had started.
 */
export async function startCoreServices(deps: AppDeps, stack: ServiceStack): Promise<CoreServices> {
  const { config, store, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const ids = deps.ids ?? randomIdGenerator;
  const registry = deps.registry ?? createProviderRegistry();
  // Infrastructure handed in is the caller's to close; what is opened here is closed here.
  const redis =
    deps.redis === undefined && config.redisUrl !== undefined
      ? await stack.start(
          'redis',
          () => openRedisClient(config.redisUrl!, config.redis),
          (client) => client.disconnect(),
        )
      : (deps.redis ?? undefined);
  const redisKeyPrefix = deps.redisKeyPrefix ?? DEFAULT_REDIS_KEY_PREFIX;
  const upstream = await stack.start(
    'upstream',
    () => deps.upstream ?? new UpstreamClient(),
    (client) => client.close(),
  );
  // Catalog models become routable when a configured provider serves them (CONTRACT §1).
  const catalogData = loadCatalogData();
  const directory = new ModelDirectory(config, routableCatalogModels(catalogData, config));
  // The `routing:` section is parsed here, once: routing and the key API read the same templates.
  const routing = await stack.start(
    'routing',
    () =>
      createRoutingRuntime({
        settings: parseRoutingSettings(config),
        clock,
        redis,
        redisKeyPrefix,
        overrides: deps.routing?.overrides,
      }),
    (runtime) => runtime.health.close(),
  );
  const keyCache = await stack.start(
    'key cache',
    async () => {
      const cache = new ApiKeyCache(store, clock, logger, deps.keyCacheOptions);
      await cache.start();
      return cache;
    },
    (cache) => cache.stop(),
  );
  const observability = await stack.start(
    'observability',
    () => Observability.create(config, deps.observability),
    (started) => started.close(),
  );
  const metrics = observability.metrics;
  const meteringOptions = deps.metering;
  const metering =
    meteringOptions === false
      ? null
      : await stack.start(
          'metering',
          async () => {
            const started = new Metering({
              config,
              store,
              logger,
              clock,
              ids,
              directory,
              redis,
              redisKeyPrefix,
              options: meteringOptions,
              onUsage: metrics ? (event) => metrics.onUsage(event) : undefined,
            });
            await started.start();
            return started;
          },
          // After the server stopped (it stops first): every finished request has queued its usage event.
          (started) => started.stop(),
        );
  const contentLog = await stack.start(
    'request content log',
    () => {
      const started = new RequestContentLog(
        store,
        clock,
        ids,
        logger,
        readRequestContentSettings(config.sections.activity),
      );
      started.start();
      return started;
    },
    // After the server stopped: the writes of the last answers finish before the store closes.
    (started) => started.stop(),
  );
  // Usage rows' upkeep: PostgreSQL's monthly partitions ahead, and `activity.retention_days`.
  const retention = readUsageRetention(config);
  await stack.start(
    'usage maintenance',
    () =>
      startUsageMaintenance({ store, clock, settings: () => retention }, USAGE_MAINTENANCE_INTERVAL_MS, (error) =>
        logger.error({ err: error }, 'usage maintenance failed'),
      ),
    (maintenance) => maintenance.close(),
  );
  const catalogFeatures = await stack.start(
    'statistics',
    () => startCatalogFeatures(deps, config, clock, catalogData, directory),
    (features) => features.recorder.stop(),
  );
  // Key changes reach every instance's cache (Redis), or this one's only.
  const announcer = await stack.start(
    'key-change broadcast',
    () =>
      redis
        ? startRedisAnnouncer({ redis, channel: `${redisKeyPrefix}key-changes`, cache: keyCache, logger })
        : localAnnouncer(keyCache),
    (started) => started.close(),
  );
  return {
    clock,
    ids,
    registry,
    upstream,
    redis,
    redisKeyPrefix,
    catalogData,
    directory,
    routing,
    keyCache,
    observability,
    metering,
    contentLog,
    catalogFeatures,
    announcer,
  };
}

/** Statistics observe every finished request; the catalog, provider and rankings routes read them. */
function startCatalogFeatures(
  deps: AppDeps,
  config: GatewayConfig,
  clock: Clock,
  catalogData: CatalogData,
  directory: ModelDirectory,
): CatalogFeatures {
  const catalog = new ModelCatalog(catalogData, config, directory.list());
  const stats = new UsageStatsService(deps.store, clock, statsCacheMs(config.sections.catalog));
  const recorder = new UsageStatsRecorder(deps.store, clock, deps.logger);
  recorder.start();
  const rankings = new RankingsService(deps.store, stats, catalog, loadBenchmarkData());
  return { catalog, recorder, stats, rankings };
}

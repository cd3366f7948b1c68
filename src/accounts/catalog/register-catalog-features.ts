import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/gateway-config.js';
import type { Store } from '../../store/database.js';
import type { Clock } from '../../shared/clock.js';
import { UsageStatsRecorder } from '../../statistics/usage-stats-recorder.js';
import { UsageStatsService } from '../../statistics/usage-stats-service.js';
import { loadCatalogData } from './load-catalog-data.js';
import { Type } from '@sinclair/typebox';
import { parseConfigSection } from '../../config/config-section.js';
import type { CatalogData } from './catalog-data.js';
import type { ModelDirectory } from '../../gateway/model-directory.js';
import { ModelCatalog } from './model-catalog.js';
import { registerCatalogRoutes } from './catalog-routes.js';
import { registerProviderRoutes } from '../providers/provider-routes.js';
import { loadBenchmarkData } from '../rankings/benchmark-data.js';
import { RankingsService } from '../rankings/rankings-service.js';
import { registerRankingsRoutes } from '../rankings/rankings-routes.js';

export interface CatalogFeatures {
  catalog: ModelCatalog;
  recorder: UsageStatsRecorder;
  stats: UsageStatsService;
  rankings: RankingsService;
}

/**
 * `catalog.stats_cache_ms` (default 5000): how long a statistics answer is reused. 0 computes every
 * answer afresh (the statistics benchmark measures both).
 */
const CatalogSection = Type.Object(
  { stats_cache_ms: Type.Optional(Type.Integer({ minimum: 0 })) },
  { additionalProperties: true },
);
function statsCacheMs(section: Record<string, unknown> | undefined): number {
  return parseConfigSection('catalog', section, CatalogSection).stats_cache_ms ?? 5000;
}

/** Catalog, providers, statistics and rankings: one call from buildApp. */
export function registerCatalogFeatures(
  app: FastifyInstance,
  deps: { config: GatewayConfig; store: Store; clock: Clock; logger: Logger; catalogData?: CatalogData; directory?: ModelDirectory },
): CatalogFeatures {
  const catalog = new ModelCatalog(deps.catalogData ?? loadCatalogData(), deps.config, deps.directory?.list());
  const stats = new UsageStatsService(deps.store, deps.clock, statsCacheMs(deps.config.sections.catalog));
  const recorder = new UsageStatsRecorder(deps.store, deps.clock, deps.logger);
  recorder.start();
  const rankings = new RankingsService(deps.store, stats, catalog, loadBenchmarkData());
  registerCatalogRoutes(app, catalog, stats);
  registerProviderRoutes(app, deps.config.providers, catalog, stats);
  registerRankingsRoutes(app, rankings);
  return { catalog, recorder, stats, rankings };
}

import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/gateway-config.js';
import type { Store } from '../../store/database.js';
import type { Clock } from '../../shared/clock.js';
import { UsageStatsRecorder } from '../../statistics/usage-stats-recorder.js';
import { UsageStatsService } from '../../statistics/usage-stats-service.js';
import { loadCatalogData } from './load-catalog-data.js';
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

/** Catalog, providers, statistics and rankings: one call from buildApp. */
export function registerCatalogFeatures(app: FastifyInstance, deps: { config: GatewayConfig; store: Store; clock: Clock; logger: Logger }): CatalogFeatures {
  const catalog = new ModelCatalog(loadCatalogData(), deps.config);
  const stats = new UsageStatsService(deps.store, deps.clock);
  const recorder = new UsageStatsRecorder(deps.store, deps.clock, deps.logger);
  recorder.start();
  const rankings = new RankingsService(deps.store, stats, catalog, loadBenchmarkData());
  registerCatalogRoutes(app, catalog, stats);
  registerProviderRoutes(app, deps.config.providers, catalog, stats);
  registerRankingsRoutes(app, rankings);
  return { catalog, recorder, stats, rankings };
}

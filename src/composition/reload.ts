import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/gateway-config.js';
import { ModelDirectory } from '../routing/model-directory.js';
import { parseRoutingSettings } from '../routing/routing-config.js';
import { configRoutingTemplates } from '../routing/routing-templates.js';
import type { RoutingRuntime } from '../routing/routing-runtime.js';
import { routableCatalogModels } from '../catalog/routable-catalog-models.js';
import { ModelCatalog } from '../catalog/model-catalog.js';
import { logScrubber } from '../shared/logger.js';
import type { CoreServices } from './core-services.js';
import type { LiveConfig } from './live-config.js';

/**
 * Puts a reloaded config's providers, models and routing settings into service. Everything is
 * built before anything is swapped: a config that cannot be applied throws and leaves the running
 * one whole. What reloads is read through these objects (and `live`) per request, never copied.
 */
export function reloader(
  core: CoreServices,
  live: LiveConfig,
  logger: Logger,
  secretsOf: (config: GatewayConfig) => (string | undefined)[],
  templateOverride: RoutingRuntime['templates'] | undefined,
): (next: GatewayConfig) => string {
  const { catalogData, directory, routing, upstream } = core;
  return (next) => {
    const nextDirectory = new ModelDirectory(next, routableCatalogModels(catalogData, next));
    const nextCatalog = new ModelCatalog(catalogData, next, nextDirectory.list());
    const settings = parseRoutingSettings(next);
    const templates = templateOverride ?? configRoutingTemplates(settings.templates);
    directory.replaceWith(nextDirectory);
    // The catalog, provider and rankings routes, and through them the console's pages and its
    // playground's list, read these: everything derived from providers and models follows.
    core.catalogFeatures.catalog.replaceWith(nextCatalog);
    logScrubber(logger)?.replace(secretsOf(next));
    routing.settings = settings;
    routing.templates = templates;
    upstream.reconfigure(next.providers);
    live.replace(next);
    return `${next.providers.length} providers, ${nextDirectory.list().length} routable models`;
  };
}

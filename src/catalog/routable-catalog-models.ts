import type { EndpointConfig, GatewayConfig, ModelConfig, ProviderConfig } from '../config/gateway-config.js';
import type { CatalogData, CatalogDataModel } from './catalog-data.js';
import { CATALOG_OFFER_PRESETS } from './catalog-offer-presets.js';
import { normalizeModelKey } from './merge-catalog-sources.js';

/**
 * Catalog models that configured providers serve, as routable models (the same shape as config
 * models, so routing, billing and /v1/models treat them alike). Pure; built once at start-up.
 *
 * - A configured provider serves an offer when its preset is the one `CATALOG_OFFER_PRESETS`
 *   maps the offer's provider to; each such provider becomes one endpoint, with the upstream
 *   model name of the offer and the catalog's price, context length and output limit.
 * - Config wins: a catalog model whose id or alias meets a config model's id (same normalised
 *   key) is left out whole; the config model, as written, is the one routed.
 * - A model without a catalog price is not routed: billing could not charge for it.
 */
export function routableCatalogModels(
  data: CatalogData,
  config: Pick<GatewayConfig, 'models' | 'providers'>,
): ModelConfig[] {
  const providersByPreset = new Map<string, ProviderConfig[]>();
  for (const provider of config.providers) {
    if (!provider.preset) continue;
    providersByPreset.set(provider.preset, [...(providersByPreset.get(provider.preset) ?? []), provider]);
  }
  if (providersByPreset.size === 0) return [];
  const configKeys = new Set(config.models.map((model) => normalizeModelKey(model.id)));
  const routable: ModelConfig[] = [];
  for (const entry of data.models) {
    if (!entry.pricing) continue;
    if ([entry.id, ...entry.aliases].some((id) => configKeys.has(normalizeModelKey(id)))) continue;
    const endpoints = endpointsOf(entry, providersByPreset);
    if (endpoints.length > 0) routable.push(toModelConfig(entry, endpoints));
  }
  return routable;
}

function endpointsOf(entry: CatalogDataModel, providersByPreset: Map<string, ProviderConfig[]>): EndpointConfig[] {
  const endpoints: EndpointConfig[] = [];
  const served = new Set<string>();
  for (const offer of entry.offers) {
    const route = CATALOG_OFFER_PRESETS[offer.provider];
    if (!route) continue;
    for (const provider of providersByPreset.get(route.preset) ?? []) {
      // One endpoint per provider: a second offer (a dated spelling of the same model) adds nothing.
      if (served.has(provider.id)) continue;
      served.add(provider.id);
      endpoints.push({
        providerId: provider.id,
        upstreamModel: offer.upstreamModel,
        pricing: { ...entry.pricing! },
        contextLength: entry.contextLength ?? null,
        maxOutputTokens: entry.maxOutputTokens ?? null,
        priority: route.priority,
        weight: 1,
        // Search needs a model-specific native option; only the config can promise it.
        supportsSearch: false,
      });
    }
  }
  return endpoints;
}

function toModelConfig(entry: CatalogDataModel, endpoints: EndpointConfig[]): ModelConfig {
  const created = entry.created ? Date.parse(entry.created) : NaN;
  return {
    id: entry.id,
    name: entry.name,
    description: entry.description ?? '',
    author: entry.author,
    created: Number.isFinite(created) ? Math.floor(created / 1000) : 0,
    inputModalities: entry.inputModalities ?? ['text'],
    // The catalog's sources carry no modality for embedding models; their ids say it.
    outputModalities: entry.outputModalities ?? (/(^|[/-])embed/.test(entry.id) ? ['embeddings'] : ['text']),
    capabilities: entry.capabilities ?? [],
    tags: entry.tags ?? [],
    endpoints,
  };
}

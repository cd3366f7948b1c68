import { unitsToDecimal } from '../shared/decimal.js';
import type { CatalogFieldName, CatalogPricing } from './catalog-data.js';
import type { CatalogEndpoint, CatalogModel } from './model-catalog.js';
import type { DescribedTotals } from '../statistics/rollup-queries.js';
import { healthStatus } from '../statistics/provider-health.js';

/** USD per million tokens (per request / per search: USD each), as exact decimal strings. */
export function presentPricing(pricing: CatalogPricing | null) {
  if (!pricing) return null;
  return {
    prompt: unitsToDecimal(pricing.promptMicros, 6),
    completion: unitsToDecimal(pricing.completionMicros, 6),
    cache_read: pricing.cacheReadMicros === null ? null : unitsToDecimal(pricing.cacheReadMicros, 6),
    cache_write: pricing.cacheWriteMicros === null ? null : unitsToDecimal(pricing.cacheWriteMicros, 6),
    per_request: unitsToDecimal(pricing.perRequestMicros, 6),
    per_search: unitsToDecimal(pricing.perSearchMicros, 6),
  };
}

/** Health of an endpoint from its measured traffic (thresholds in statistics/provider-health.ts). */
export const endpointStatus = healthStatus;

function presentEndpoint(endpoint: CatalogEndpoint, stats?: DescribedTotals) {
  return {
    provider: endpoint.providerId,
    provider_name: endpoint.providerName,
    upstream_model: endpoint.upstreamModel,
    pricing: presentPricing(endpoint.pricing),
    context_length: endpoint.contextLength,
    max_output_tokens: endpoint.maxOutputTokens,
    status: endpointStatus(stats),
    ...(stats
      ? {
          stats_24h: {
            requests: stats.requests,
            success_rate: stats.success_rate,
            uptime: stats.uptime,
            latency_ms: stats.latency_ms,
            ttft_ms: stats.ttft_ms,
            tokens_per_second: stats.tokens_per_second,
          },
        }
      : {}),
  };
}

/** Each catalog field under the name the model record shows it by (one casing in every response). */
const FIELD_NAMES: Record<CatalogFieldName, string> = {
  name: 'name',
  description: 'description',
  author: 'author',
  contextLength: 'context_length',
  maxOutputTokens: 'max_output_tokens',
  pricing: 'pricing',
  inputModalities: 'input_modalities',
  outputModalities: 'output_modalities',
  capabilities: 'capabilities',
  tags: 'tags',
  created: 'created',
  knowledgeCutoff: 'knowledge_cutoff',
  links: 'links',
};

/** `sources` keyed by the record's own field names: where each field shown came from. */
function presentSources(sources: CatalogModel['sources']): Record<string, string> {
  return Object.fromEntries(
    Object.entries(sources).map(([field, source]) => [FIELD_NAMES[field as CatalogFieldName] ?? field, source!]),
  );
}

export function presentCatalogModel(model: CatalogModel, endpointStats?: Map<string, DescribedTotals>) {
  return {
    id: model.id,
    model_path: model.id,
    name: model.name,
    author: model.author,
    description: model.description,
    context_length: model.contextLength,
    max_output_tokens: model.maxOutputTokens,
    pricing: presentPricing(model.pricing),
    capabilities: model.capabilities,
    tags: model.tags,
    input_modalities: model.inputModalities,
    output_modalities: model.outputModalities,
    created: model.createdAt === null ? null : new Date(model.createdAt).toISOString(),
    knowledge_cutoff: model.knowledgeCutoff,
    links: model.links,
    aliases: model.aliases,
    routable: model.endpoints.length > 0,
    endpoints: model.endpoints.map((endpoint) =>
      presentEndpoint(
        endpoint,
        endpointStats ? (endpointStats.get(endpoint.providerId) ?? describeEmpty()) : undefined,
      ),
    ),
    sources: presentSources(model.sources),
  };
}

function describeEmpty(): DescribedTotals {
  return {
    requests: 0,
    successes: 0,
    success_rate: null,
    uptime: null,
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    latency_ms: { p50: null, p95: null },
    ttft_ms: { p50: null, p95: null },
    tokens_per_second: null,
  };
}

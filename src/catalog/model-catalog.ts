import type { EndpointConfig, GatewayConfig, ModelConfig } from '../config/gateway-config.js';
import type {
  CatalogData,
  CatalogDataModel,
  CatalogFieldName,
  CatalogLink,
  CatalogOffer,
  CatalogPricing,
} from './catalog-data.js';
import { normalizeModelKey } from './merge-catalog-sources.js';

export interface CatalogEndpoint {
  providerId: string;
  providerName: string;
  upstreamModel: string;
  pricing: CatalogPricing;
  contextLength: number | null;
  maxOutputTokens: number | null;
}

/** One model of the public catalog: built-in data with the config merged on top (config wins). */
export interface CatalogModel {
  id: string;
  name: string;
  description: string;
  author: string;
  contextLength: number | null;
  maxOutputTokens: number | null;
  pricing: CatalogPricing | null;
  inputModalities: string[];
  outputModalities: string[];
  capabilities: string[];
  tags: string[];
  /** Epoch milliseconds of release, when known. */
  createdAt: number | null;
  knowledgeCutoff: string | null;
  links: CatalogLink[];
  sources: Partial<Record<CatalogFieldName, string>>;
  aliases: string[];
  offers: CatalogOffer[];
  /** Who serves it through this gateway: config endpoints, or configured providers serving its catalog offers. Empty when unrouted. */
  endpoints: CatalogEndpoint[];
  /** Lower-cased text searched by `q`. */
  searchText: string;
}

const byTotalPrice = (a: { pricing: CatalogPricing }, b: { pricing: CatalogPricing }) =>
  a.pricing.promptMicros + a.pricing.completionMicros - (b.pricing.promptMicros + b.pricing.completionMicros);

function fromData(model: CatalogDataModel): CatalogModel {
  const created = model.created ? Date.parse(model.created) : NaN;
  return {
    id: model.id,
    name: model.name,
    description: model.description ?? '',
    author: model.author,
    contextLength: model.contextLength ?? null,
    maxOutputTokens: model.maxOutputTokens ?? null,
    pricing: model.pricing ?? null,
    inputModalities: model.inputModalities ?? ['text'],
    outputModalities: model.outputModalities ?? ['text'],
    capabilities: model.capabilities ?? [],
    tags: model.tags ?? [],
    createdAt: Number.isFinite(created) ? created : null,
    knowledgeCutoff: model.knowledgeCutoff ?? null,
    links: model.links ?? [],
    sources: { ...model.sources },
    aliases: model.aliases,
    offers: model.offers,
    endpoints: [],
    searchText: '',
  };
}

function toEndpoint(endpoint: EndpointConfig, providerName: string): CatalogEndpoint {
  return {
    providerId: endpoint.providerId,
    providerName,
    upstreamModel: endpoint.upstreamModel,
    pricing: endpoint.pricing,
    contextLength: endpoint.contextLength,
    maxOutputTokens: endpoint.maxOutputTokens,
  };
}

/**
 * Config on top of data: what the operator wrote wins. Resolved config fills defaults (name = id,
 * modalities [text], empty lists), so a field counts as written only when it differs from them.
 */
function applyConfig(
  base: CatalogModel | undefined,
  config: ModelConfig,
  providerNames: Map<string, string>,
): CatalogModel {
  const model: CatalogModel =
    base ?? fromData({ id: config.id, author: config.author, name: config.id, sources: {}, aliases: [], offers: [] });
  const set = <K extends keyof CatalogModel>(field: K, value: CatalogModel[K], source: CatalogFieldName) => {
    model[field] = value;
    model.sources[source] = 'config';
  };
  if (model.id !== config.id)
    model.aliases = [...new Set([model.id, ...model.aliases])].filter((alias) => alias !== config.id);
  model.id = config.id;
  if (config.name !== config.id || !base) set('name', config.name, 'name');
  if (config.description) set('description', config.description, 'description');
  set('author', config.author, 'author');
  if (config.created) set('createdAt', config.created * 1000, 'created');
  const defaultModalities = config.inputModalities.length === 1 && config.inputModalities[0] === 'text';
  if (!defaultModalities || !base) set('inputModalities', config.inputModalities, 'inputModalities');
  if (config.outputModalities.join() !== 'text' || !base)
    set('outputModalities', config.outputModalities, 'outputModalities');
  if (config.capabilities.length > 0) set('capabilities', config.capabilities, 'capabilities');
  if (config.tags.length > 0) set('tags', config.tags, 'tags');
  model.endpoints = config.endpoints.map((endpoint) =>
    toEndpoint(endpoint, providerNames.get(endpoint.providerId) ?? endpoint.providerId),
  );
  // The model's headline price and context are those of the endpoints that actually serve it here.
  const cheapest = [...model.endpoints].sort(byTotalPrice)[0];
  if (cheapest) set('pricing', cheapest.pricing, 'pricing');
  const contexts = model.endpoints
    .map((endpoint) => endpoint.contextLength)
    .filter((value): value is number => value !== null);
  if (contexts.length > 0) set('contextLength', Math.max(...contexts), 'contextLength');
  if (config.endpoints.some((endpoint) => endpoint.supportsSearch) && !model.capabilities.includes('web_search'))
    model.capabilities = [...model.capabilities, 'web_search'];
  return model;
}

/** The merged catalog, in memory (a few hundred records): filters and sorts run over it directly. */
export class ModelCatalog {
  private sortedModels: CatalogModel[];
  private byId = new Map<string, CatalogModel>();

  /** `routed`: the routable models (the model directory's), whose endpoints the catalog-only models take. */
  constructor(data: CatalogData, config: Pick<GatewayConfig, 'models' | 'providers'>, routed: ModelConfig[] = []) {
    const providerNames = new Map(config.providers.map((provider) => [provider.id, provider.name]));
    const byKey = new Map<string, CatalogModel>();
    for (const entry of data.models) {
      const model = fromData(entry);
      byKey.set(normalizeModelKey(model.id), model);
      for (const alias of model.aliases)
        if (!byKey.has(normalizeModelKey(alias))) byKey.set(normalizeModelKey(alias), model);
    }
    const merged = new Set<CatalogModel>(byKey.values());
    for (const modelConfig of config.models) {
      const key = normalizeModelKey(modelConfig.id);
      const base = byKey.get(key);
      if (base) merged.delete(base);
      const model = applyConfig(base, modelConfig, providerNames);
      byKey.set(key, model);
      merged.add(model);
    }
    this.sortedModels = [...merged].sort((a, b) => a.id.localeCompare(b.id));
    for (const model of this.models) {
      model.searchText = [model.id, model.name, model.author, model.description, ...model.aliases]
        .join('\n')
        .toLowerCase();
      this.byId.set(model.id, model);
    }
    for (const model of this.models)
      for (const alias of model.aliases) if (!this.byId.has(alias)) this.byId.set(alias, model);
    // Catalog models routed to configured providers list those endpoints; their catalog fields stay as they are.
    const configIds = new Set(config.models.map((model) => model.id));
    for (const routedModel of routed) {
      const model = configIds.has(routedModel.id) ? undefined : this.byId.get(routedModel.id);
      if (model)
        model.endpoints = routedModel.endpoints.map((endpoint) =>
          toEndpoint(endpoint, providerNames.get(endpoint.providerId) ?? endpoint.providerId),
        );
    }
  }

  /** Every model, by id. A new array after a reload (callers may cache what they derive from it by identity). */
  get models(): CatalogModel[] {
    return this.sortedModels;
  }

  /**
   * Takes the models of a catalog built from a reloaded config. Whoever holds this catalog (the
   * catalog, provider and rankings routes) sees the new models from the next request on.
   */
  replaceWith(next: ModelCatalog): void {
    this.sortedModels = next.sortedModels;
    this.byId = next.byId;
  }

  /** By id or by one of its aliases (dated versions, provider spellings). */
  get(id: string): CatalogModel | undefined {
    return this.byId.get(id);
  }
}

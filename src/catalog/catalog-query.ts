import { InvalidRequestError } from '../shared/errors.js';
import type { CatalogModel } from './model-catalog.js';

export const CATALOG_SORTS = ['name', 'price', 'context', 'popularity', 'newest'] as const;
type CatalogSort = (typeof CATALOG_SORTS)[number];

export interface CatalogQuery {
  q?: string;
  author?: string;
  provider?: string;
  input_modality?: string[];
  output_modality?: string[];
  capability?: string[];
  tag?: string;
  /** USD per million prompt tokens. */
  max_prompt_price?: number;
  min_context?: number;
  /** Only the models this gateway can route (with at least one endpoint). */
  available?: boolean;
  sort: CatalogSort;
  order?: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/** The natural direction of each sort; `order` reverses it. */
const DEFAULT_ORDER: Record<CatalogSort, 'asc' | 'desc'> = {
  name: 'asc',
  price: 'asc',
  context: 'desc',
  popularity: 'desc',
  newest: 'desc',
};

/** Known values of the free-text filters; anything else is a 400 naming the parameter, not an empty page. */
export interface KnownValues {
  authors: Set<string>;
  providers: Set<string>;
  tags: Set<string>;
}

export function checkKnownValues(query: CatalogQuery, known: KnownValues): void {
  const check = (param: 'author' | 'provider' | 'tag', values: Set<string>) => {
    const value = query[param];
    if (value !== undefined && !values.has(value)) {
      throw new InvalidRequestError(
        `Invalid value for '${param}': ${JSON.stringify(value)}. Supported values are: ${[...values]
          .sort()
          .map((known) => `'${known}'`)
          .join(', ')} (with counts at /api-account/models/filters).`,
        param,
        'invalid_value',
      );
    }
  };
  check('author', known.authors);
  check('provider', known.providers);
  check('tag', known.tags);
}

/** Pure: filter, sort and page the catalog. Ties always break by id, so pages are stable. */
export function queryCatalog(
  models: readonly CatalogModel[],
  query: CatalogQuery,
  popularity: Map<string, number>,
): { data: CatalogModel[]; total: number } {
  const text = query.q?.trim().toLowerCase();
  const maxPromptMicros =
    query.max_prompt_price === undefined ? undefined : Math.round(query.max_prompt_price * 1_000_000);
  const matches = models.filter((model) => {
    if (text && !model.searchText.includes(text)) return false;
    if (query.available && model.endpoints.length === 0) return false;
    if (query.author !== undefined && model.author !== query.author) return false;
    if (query.provider !== undefined && !model.endpoints.some((endpoint) => endpoint.providerId === query.provider))
      return false;
    if (query.input_modality && !query.input_modality.every((modality) => model.inputModalities.includes(modality)))
      return false;
    if (query.output_modality && !query.output_modality.every((modality) => model.outputModalities.includes(modality)))
      return false;
    if (query.capability && !query.capability.every((capability) => model.capabilities.includes(capability)))
      return false;
    if (query.tag !== undefined && !model.tags.includes(query.tag)) return false;
    if (maxPromptMicros !== undefined && (model.pricing === null || model.pricing.promptMicros > maxPromptMicros))
      return false;
    if (query.min_context !== undefined && (model.contextLength === null || model.contextLength < query.min_context))
      return false;
    return true;
  });
  const direction = (query.order ?? DEFAULT_ORDER[query.sort]) === 'asc' ? 1 : -1;
  // Models without the sorted value (no price, no date) go last whatever the direction.
  const value = (model: CatalogModel): number | string | null => {
    switch (query.sort) {
      case 'name':
        return model.name.toLowerCase();
      case 'price':
        return model.pricing ? model.pricing.promptMicros + model.pricing.completionMicros : null;
      case 'context':
        return model.contextLength;
      case 'popularity':
        return popularity.get(model.id) ?? 0;
      case 'newest':
        return model.createdAt;
    }
  };
  // Before the chosen sort: in the default order (most used) the models this gateway serves come first;
  // when searching, the better match. An explicit sort (name, price, context, newest) is kept as asked.
  const keyed = matches.map((model) => ({
    model,
    key: value(model),
    routable: query.sort === 'popularity' && model.endpoints.length === 0 ? 1 : 0,
    relevance: text ? matchRank(model, text) : 0,
  }));
  // Equal usage (most of a large catalog has none) reads newest first: "claude" lists current models.
  const tieBreak = (a: CatalogModel, b: CatalogModel) =>
    (query.sort === 'popularity' ? (b.createdAt ?? 0) - (a.createdAt ?? 0) : 0) || a.id.localeCompare(b.id);
  keyed.sort((a, b) => {
    const first = a.routable - b.routable || a.relevance - b.relevance;
    if (first !== 0) return first;
    if (a.key === null || b.key === null) return a.key === b.key ? tieBreak(a.model, b.model) : a.key === null ? 1 : -1;
    const compared = typeof a.key === 'string' ? a.key.localeCompare(b.key as string) : a.key - (b.key as number);
    return compared * direction || tieBreak(a.model, b.model);
  });
  return {
    data: keyed.slice(query.offset, query.offset + query.limit).map((entry) => entry.model),
    total: matches.length,
  };
}

/**
 * How well a model matches the search text (lower is better): 0 the id, its last segment or the name
 * exactly; 1 the name or the id's last segment starting with it; 2 any word of the id or name starting
 * with it; 3 anywhere else (description, aliases).
 */
export function matchRank(model: Pick<CatalogModel, 'id' | 'name'>, text: string): number {
  const id = model.id.toLowerCase();
  const name = model.name.toLowerCase();
  const slug = id.slice(id.lastIndexOf('/') + 1);
  if (id === text || slug === text || name === text) return 0;
  if (slug.startsWith(text) || name.startsWith(text)) return 1;
  const words = `${id} ${name}`.split(/[\s/:._-]+/);
  if (words.some((word) => word.startsWith(text))) return 2;
  return 3;
}

/** Values and counts for /models/filters. */
export function catalogFilterValues(models: readonly CatalogModel[]) {
  const count = (values: (model: CatalogModel) => string[]) => {
    const counts = new Map<string, number>();
    for (const model of models)
      for (const value of new Set(values(model))) counts.set(value, (counts.get(value) ?? 0) + 1);
    return [...counts]
      .map(([value, models]) => ({ value, count: models }))
      .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
  };
  return {
    authors: count((model) => [model.author]),
    providers: count((model) => model.endpoints.map((endpoint) => endpoint.providerId)),
    input_modalities: count((model) => model.inputModalities),
    output_modalities: count((model) => model.outputModalities),
    capabilities: count((model) => model.capabilities),
    tags: count((model) => model.tags),
    sorts: [...CATALOG_SORTS],
  };
}

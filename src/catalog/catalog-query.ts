import { InvalidRequestError } from '../shared/errors.js';
import type { CatalogModel } from './model-catalog.js';

export const CATALOG_SORTS = ['name', 'price', 'context', 'popularity', 'newest'] as const;
export type CatalogSort = (typeof CATALOG_SORTS)[number];

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
  const keyed = matches.map((model) => ({ model, key: value(model) }));
  keyed.sort((a, b) => {
    if (a.key === null || b.key === null)
      return a.key === b.key ? a.model.id.localeCompare(b.model.id) : a.key === null ? 1 : -1;
    const compared = typeof a.key === 'string' ? a.key.localeCompare(b.key as string) : a.key - (b.key as number);
    return compared * direction || a.model.id.localeCompare(b.model.id);
  });
  return {
    data: keyed.slice(query.offset, query.offset + query.limit).map((entry) => entry.model),
    total: matches.length,
  };
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

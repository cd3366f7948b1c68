import type { CatalogDataModel, CatalogFieldName, CatalogFields, CatalogOffer } from './catalog-data.js';

/** What one data package says about one model, already translated into our vocabulary. */
export interface SourceEntry {
  /** Data family ("genai-prices", "llm-zoo", "tokenlens") and where inside it ("genai-prices:anthropic"). */
  family: string;
  source: string;
  /** Lower wins among entries of the same family (first-party price lists before resellers). */
  rank: number;
  /** Canonical id `author/slug`. */
  id: string;
  /** Whether `id` is a display-quality canonical spelling (OpenRouter style) rather than a raw API id. */
  preferredId: boolean;
  fields: Partial<CatalogFields>;
  offers?: CatalogOffer[];
}

/** For each field, the families to take it from, most trusted first. */
const FIELD_PREFERENCE: Record<CatalogFieldName, string[]> = {
  name: ['llm-zoo', 'genai-prices', 'tokenlens'],
  description: ['genai-prices'],
  author: ['genai-prices', 'llm-zoo', 'tokenlens'],
  // genai-prices is the most current price list; the others fill gaps.
  pricing: ['genai-prices', 'llm-zoo', 'tokenlens'],
  contextLength: ['genai-prices', 'tokenlens', 'llm-zoo'],
  maxOutputTokens: ['llm-zoo', 'tokenlens'],
  // Only llm-zoo and tokenlens know modalities and capabilities; llm-zoo is the more current.
  inputModalities: ['tokenlens', 'llm-zoo'],
  outputModalities: ['tokenlens', 'llm-zoo'],
  capabilities: ['llm-zoo', 'tokenlens'],
  tags: ['tokenlens', 'llm-zoo', 'genai-prices'],
  created: ['tokenlens'],
  knowledgeCutoff: ['tokenlens'],
  links: ['genai-prices', 'tokenlens'],
};

/**
 * The key that makes two spellings of one model meet: `anthropic/claude-3.5-sonnet`,
 * `anthropic/claude-3-5-sonnet-20241022` and `anthropic/claude-3-5-sonnet-latest` are one model.
 */
export function normalizeModelKey(id: string): string {
  return id
    .toLowerCase()
    .replace(/[._:]/g, '-')
    .replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/, '')
    .replace(/-0$/, '');
}

/** Pure: merges source entries into catalog models, recording the source of every field. */
export function mergeCatalogSources(entries: SourceEntry[]): CatalogDataModel[] {
  const groups = new Map<string, SourceEntry[]>();
  for (const entry of entries) {
    const key = normalizeModelKey(entry.id);
    const group = groups.get(key);
    if (group) group.push(entry);
    else groups.set(key, [entry]);
  }
  const models: CatalogDataModel[] = [];
  for (const group of groups.values()) models.push(mergeGroup(group));
  const seen = new Set<string>();
  return models
    .sort((a, b) => a.id.localeCompare(b.id))
    .filter((model) => (seen.has(model.id) ? false : (seen.add(model.id), true)));
}

function mergeGroup(group: SourceEntry[]): CatalogDataModel {
  const id = chooseId(group);
  const model: CatalogDataModel = {
    id,
    author: id.slice(0, id.indexOf('/')),
    name: id,
    sources: {},
    aliases: [],
    offers: [],
  };
  for (const field of Object.keys(FIELD_PREFERENCE) as CatalogFieldName[]) {
    const chosen = pickField(group, field);
    if (!chosen) continue;
    (model as unknown as Record<string, unknown>)[field] = chosen.fields[field];
    model.sources[field] = chosen.source;
  }
  model.author = id.slice(0, id.indexOf('/'));
  model.sources.author = 'id';
  if (!model.name) model.name = id;
  model.aliases = [...new Set(group.map((entry) => entry.id).filter((alias) => alias !== id))].sort();
  const offers = new Map<string, CatalogOffer>();
  for (const entry of group)
    for (const offer of entry.offers ?? []) offers.set(`${offer.provider}\u0000${offer.upstreamModel}`, offer);
  model.offers = [...offers.values()].sort(
    (a, b) => a.provider.localeCompare(b.provider) || a.upstreamModel.localeCompare(b.upstreamModel),
  );
  return model;
}

function pickField(group: SourceEntry[], field: CatalogFieldName): SourceEntry | undefined {
  for (const family of FIELD_PREFERENCE[field]) {
    const candidates = group
      .filter((entry) => entry.family === family && hasValue(entry.fields[field]))
      .sort((a, b) => a.rank - b.rank);
    if (candidates.length > 0) return candidates[0];
  }
  return undefined;
}

function hasValue(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

const DATED = /-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/;

/** The display id: undated before dated, then an OpenRouter-style spelling, then the shortest. */
function chooseId(group: SourceEntry[]): string {
  const score = (entry: SourceEntry) => (DATED.test(entry.id) ? 2 : 0) + (entry.preferredId ? 0 : 1);
  return [...group].sort(
    (a, b) => score(a) - score(b) || a.rank - b.rank || a.id.length - b.id.length || a.id.localeCompare(b.id),
  )[0].id;
}

/**
 * The shape of `catalog/catalog-data.json`: the built-in model catalog, merged at build time
 * from maintained npm data packages (see scripts/build-catalog.ts). Nothing here is fetched at
 * run time; upgrading the packages and running `npm run catalog:build` refreshes it.
 */

/** Micro-USD per million tokens (per request / per search: micro-USD each). Integers, like config pricing. */
export interface CatalogPricing {
  promptMicros: number;
  completionMicros: number;
  cacheReadMicros: number | null;
  cacheWriteMicros: number | null;
  perRequestMicros: number;
  perSearchMicros: number;
}

/** A provider known to serve the model, with the name its API knows it by (not necessarily configured here). */
export interface CatalogOffer {
  provider: string;
  upstreamModel: string;
}

export interface CatalogLink {
  label: string;
  url: string;
}

/** The fields a source may contribute; each merged field records which source it came from. */
export interface CatalogFields {
  name: string;
  description: string;
  author: string;
  contextLength: number;
  maxOutputTokens: number;
  pricing: CatalogPricing;
  inputModalities: string[];
  outputModalities: string[];
  capabilities: string[];
  tags: string[];
  /** ISO date (YYYY-MM-DD) of release. */
  created: string;
  /** YYYY-MM or YYYY-MM-DD. */
  knowledgeCutoff: string;
  links: CatalogLink[];
}

export type CatalogFieldName = keyof CatalogFields;

export interface CatalogDataModel extends Partial<CatalogFields> {
  id: string;
  author: string;
  name: string;
  /** Source of each field, e.g. { pricing: "genai-prices:anthropic", capabilities: "llm-zoo" }; "config" once config overrides it. */
  sources: Partial<Record<CatalogFieldName, string>>;
  /** Other ids the same model is known by (dated versions, provider spellings). */
  aliases: string[];
  offers: CatalogOffer[];
}

export interface CatalogData {
  /** Package name → version the data was built from. */
  generatedFrom: Record<string, string>;
  models: CatalogDataModel[];
}

/** The capability vocabulary of the catalog (filters accept only these). */
export const CAPABILITIES = [
  'tools',
  'json_output',
  'vision',
  'reasoning',
  'web_search',
  'prompt_caching',
  'pdf_input',
  'audio_input',
  'code_execution',
] as const;

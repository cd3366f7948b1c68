/**
 * Which provider preset serves a catalog offer. The catalog data names the provider of each offer
 * (`CatalogOffer.provider`); a configured provider serves that offer when its preset (the `preset`
 * field, or an id that is a preset name, or a credential variable) is the one named here.
 *
 * The build script already writes preset ids for first-party APIs (Google's price list → `gemini`,
 * x-ai → `xai`); the vendors' own spellings are listed too, so a data refresh that writes them
 * still routes. An offer whose provider is missing here is never routed: guessing would send a
 * model name to an API that does not know it.
 *
 * `priority`: direct APIs (0) are tried before aggregators that resell them (1).
 */
export interface OfferRoute {
  preset: string;
  priority: number;
}

export const CATALOG_OFFER_PRESETS: Record<string, OfferRoute> = {
  openai: { preset: 'openai', priority: 0 },
  anthropic: { preset: 'anthropic', priority: 0 },
  gemini: { preset: 'gemini', priority: 0 },
  google: { preset: 'gemini', priority: 0 },
  mistral: { preset: 'mistral', priority: 0 },
  mistralai: { preset: 'mistral', priority: 0 },
  deepseek: { preset: 'deepseek', priority: 0 },
  xai: { preset: 'xai', priority: 0 },
  'x-ai': { preset: 'xai', priority: 0 },
  perplexity: { preset: 'perplexity', priority: 0 },
  openrouter: { preset: 'openrouter', priority: 1 },
};

import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { PROVIDER_PRESETS } from '../config/provider-presets.js';
import { loadCatalogData } from './load-catalog-data.js';
import { CATALOG_OFFER_PRESETS } from './catalog-offer-presets.js';
import { routableCatalogModels } from './routable-catalog-models.js';

const data = loadCatalogData();
const configOf = (text: string, env: Record<string, string> = {}) =>
  loadConfig({ text, env, knownProviderTypes: ['openai', 'anthropic', 'gemini'] }).config;
const byId = (models: ReturnType<typeof routableCatalogModels>) => new Map(models.map((model) => [model.id, model]));

describe('routableCatalogModels', () => {
  it('maps every offer provider of the data to an existing preset', () => {
    const offerProviders = new Set(data.models.flatMap((model) => model.offers.map((offer) => offer.provider)));
    for (const provider of offerProviders) expect(CATALOG_OFFER_PRESETS[provider], provider).toBeDefined();
    for (const route of Object.values(CATALOG_OFFER_PRESETS))
      expect(PROVIDER_PRESETS[route.preset], route.preset).toBeDefined();
    // Google's models are served by the Gemini API preset.
    const gemini = data.models.find((model) => model.id === 'google/gemini-2.0-flash')!;
    expect(gemini.offers.map((offer) => CATALOG_OFFER_PRESETS[offer.provider].preset)).toEqual(['gemini']);
  });

  it('routes catalog models to a provider enabled by its credential variable, with catalog prices', () => {
    const models = byId(
      routableCatalogModels(data, configOf('', { OPENAI_API_KEY: 'sk-test', GEMINI_API_KEY: 'g-test' })),
    );
    const mini = models.get('openai/gpt-4o-mini')!;
    expect(mini.endpoints).toEqual([
      expect.objectContaining({
        providerId: 'openai',
        upstreamModel: 'gpt-4o-mini',
        contextLength: 128000,
        pricing: expect.objectContaining({ promptMicros: 150000, completionMicros: 600000 }),
      }),
    ]);
    expect(mini).toMatchObject({ author: 'openai', name: expect.not.stringMatching(/^openai\//) });
    expect(mini.created).toBeGreaterThan(1_700_000_000);
    expect(models.get('google/gemini-2.0-flash')?.endpoints[0]).toMatchObject({
      providerId: 'gemini',
      upstreamModel: 'gemini-2.0-flash',
    });
    expect(models.has('anthropic/claude-sonnet-4')).toBe(false);
    for (const model of models.values())
      expect(
        model.endpoints.every((endpoint) => endpoint.providerId === 'openai' || endpoint.providerId === 'gemini'),
      ).toBe(true);
  });

  it('follows the preset field, tries direct APIs before aggregators, and ignores providers without a preset', () => {
    const config = configOf(`
providers:
  - { id: router, preset: openrouter, api_key: k }
  - { id: direct, preset: openai, api_key: k }
  - { id: proxy, type: openai, base_url: http://127.0.0.1:9/v1 }
`);
    const mini = byId(routableCatalogModels(data, config)).get('openai/gpt-4o-mini')!;
    expect(mini.endpoints.map((endpoint) => [endpoint.providerId, endpoint.upstreamModel, endpoint.priority])).toEqual([
      ['direct', 'gpt-4o-mini', 0],
      ['router', 'openai/gpt-4o-mini', 1],
    ]);
    expect(
      routableCatalogModels(
        data,
        configOf(`providers:\n  - { id: proxy, type: openai, base_url: http://127.0.0.1:9/v1 }\n`),
      ),
    ).toEqual([]);
  });

  it('leaves out a catalog model the config declares, under its id or an alias', () => {
    const config = configOf(`
providers:
  - { id: openai, api_key: k }
models:
  - id: openai/gpt-4o-mini-2024-07-18
    endpoints: [{ provider: openai, upstream_model: gpt-4o-mini-2024-07-18 }]
`);
    const models = byId(routableCatalogModels(data, config));
    expect(models.has('openai/gpt-4o-mini')).toBe(false);
    expect(models.has('openai/gpt-4o')).toBe(true);
  });

  it('routes only priced models (billing needs a price)', () => {
    const models = routableCatalogModels(data, configOf('', { OPENROUTER_API_KEY: 'k' }));
    const unpriced = new Set(data.models.filter((model) => !model.pricing).map((model) => model.id));
    expect(models.length).toBeGreaterThan(300);
    expect(models.some((model) => unpriced.has(model.id))).toBe(false);
  });
});

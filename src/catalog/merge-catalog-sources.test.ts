import { describe, expect, it } from 'vitest';
import { mergeCatalogSources, normalizeModelKey, type SourceEntry } from './merge-catalog-sources.js';

const price = (prompt: number, completion: number) => ({
  promptMicros: prompt,
  completionMicros: completion,
  cacheReadMicros: null,
  cacheWriteMicros: null,
  perRequestMicros: 0,
  perSearchMicros: 0,
});

describe('normalizeModelKey', () => {
  it.each([
    ['anthropic/claude-3.5-sonnet', 'anthropic/claude-3-5-sonnet'],
    ['anthropic/claude-3-5-sonnet-20241022', 'anthropic/claude-3-5-sonnet'],
    ['anthropic/claude-3-5-sonnet-latest', 'anthropic/claude-3-5-sonnet'],
    ['openai/gpt-4o-2024-11-20', 'openai/gpt-4o'],
    ['anthropic/claude-sonnet-4-0', 'anthropic/claude-sonnet-4'],
    ['openai/gpt-4o-mini', 'openai/gpt-4o-mini'],
  ])('%s → %s', (id, key) => expect(normalizeModelKey(id)).toBe(key));
});

describe('mergeCatalogSources', () => {
  const entries: SourceEntry[] = [
    {
      family: 'tokenlens',
      source: 'tokenlens:anthropic',
      rank: 0,
      id: 'anthropic/claude-3-5-sonnet-20241022',
      preferredId: false,
      fields: {
        name: 'Claude 3.5 Sonnet (tl)',
        contextLength: 200000,
        pricing: price(3, 15),
        inputModalities: ['text', 'image'],
        created: '2024-10-22',
      },
      offers: [{ provider: 'anthropic', upstreamModel: 'claude-3-5-sonnet-20241022' }],
    },
    {
      family: 'genai-prices',
      source: 'genai-prices:openrouter',
      rank: 1,
      id: 'anthropic/claude-3.5-sonnet',
      preferredId: true,
      fields: { pricing: price(6, 30) },
      offers: [{ provider: 'openrouter', upstreamModel: 'anthropic/claude-3.5-sonnet' }],
    },
    {
      family: 'genai-prices',
      source: 'genai-prices:anthropic',
      rank: 0,
      id: 'anthropic/claude-3-5-sonnet-latest',
      preferredId: false,
      fields: { pricing: price(3_000_000, 15_000_000), description: 'From the price list' },
    },
    {
      family: 'llm-zoo',
      source: 'llm-zoo',
      rank: 0,
      id: 'anthropic/claude-3.5-sonnet',
      preferredId: true,
      fields: { name: 'Claude 3.5 Sonnet', capabilities: ['tools', 'vision'] },
    },
    {
      family: 'tokenlens',
      source: 'tokenlens:openai',
      rank: 0,
      id: 'openai/gpt-4o',
      preferredId: false,
      fields: { name: 'GPT-4o' },
    },
  ];
  const models = mergeCatalogSources(entries);

  it('groups spellings of one model under the undated OpenRouter-style id, keeping the others as aliases', () => {
    expect(models.map((model) => model.id)).toEqual(['anthropic/claude-3.5-sonnet', 'openai/gpt-4o']);
    expect(models[0].aliases).toEqual(['anthropic/claude-3-5-sonnet-20241022', 'anthropic/claude-3-5-sonnet-latest']);
    expect(models[0].author).toBe('anthropic');
  });

  it('takes each field from its most trusted source and records where it came from', () => {
    const [sonnet] = models;
    expect(sonnet.pricing?.promptMicros).toBe(3_000_000); // first-party price list beats the reseller's
    expect(sonnet.sources.pricing).toBe('genai-prices:anthropic');
    expect(sonnet.name).toBe('Claude 3.5 Sonnet');
    expect(sonnet.sources.name).toBe('llm-zoo');
    expect(sonnet.capabilities).toEqual(['tools', 'vision']);
    expect(sonnet.inputModalities).toEqual(['text', 'image']);
    expect(sonnet.sources.inputModalities).toBe('tokenlens:anthropic');
    expect(sonnet.created).toBe('2024-10-22');
    expect(sonnet.offers.map((offer) => offer.provider)).toEqual(['anthropic', 'openrouter']);
  });
});

import { describe, expect, it } from 'vitest';
import { matchRank, queryCatalog, type CatalogQuery } from './catalog-query.js';
import type { CatalogEndpoint, CatalogModel } from './model-catalog.js';

function model(id: string, name: string, created: string, routable = false): CatalogModel {
  return {
    id,
    name,
    description: `${name} by its author`,
    author: id.split('/')[0],
    contextLength: null,
    maxOutputTokens: null,
    pricing: null,
    inputModalities: ['text'],
    outputModalities: ['text'],
    capabilities: [],
    tags: [],
    createdAt: Date.parse(created),
    knowledgeCutoff: null,
    links: [],
    sources: {},
    aliases: [],
    offers: [],
    endpoints: routable ? [{ providerId: 'mock' } as CatalogEndpoint] : [],
    searchText: `${id} ${name} ${name} by its author`.toLowerCase(),
  };
}

const MODELS = [
  model('anthropic/claude-2', 'Claude 2', '2023-07-11'),
  model('anthropic/claude-opus-4.5', 'Claude Opus 4.5', '2025-11-24'),
  model('anthropic/claude-3-haiku', 'Claude 3 Haiku', '2024-03-07'),
  model('openai/gpt-4o', 'GPT-4o', '2024-05-13', true),
  { ...model('acme/helper', 'Helper', '2025-01-01'), searchText: 'acme/helper helper, works with claude' },
  model('mock/chat', 'Mock Chat', '2024-01-01', true),
];
const query = (change: Partial<CatalogQuery>): CatalogQuery => ({
  sort: 'popularity',
  limit: 50,
  offset: 0,
  ...change,
});
const ids = (result: { data: CatalogModel[] }) => result.data.map((entry) => entry.id);

describe('catalog order (issue 28)', () => {
  it('lists the models this gateway serves first, then the most used, newest first on equal use', () => {
    const popularity = new Map([['anthropic/claude-2', 5]]);
    expect(ids(queryCatalog(MODELS, query({}), popularity))).toEqual([
      'openai/gpt-4o',
      'mock/chat',
      'anthropic/claude-2',
      'anthropic/claude-opus-4.5',
      'acme/helper',
      'anthropic/claude-3-haiku',
    ]);
  });

  it('"claude" does not show Claude 2 first: name matches before mentions, newest first', () => {
    expect(ids(queryCatalog(MODELS, query({ q: 'claude' }), new Map()))).toEqual([
      'anthropic/claude-opus-4.5',
      'anthropic/claude-3-haiku',
      'anthropic/claude-2',
      'acme/helper',
    ]);
  });

  it('an exact id or name ranks first', () => {
    expect(ids(queryCatalog(MODELS, query({ q: 'claude 2' }), new Map()))[0]).toBe('anthropic/claude-2');
    expect(matchRank(MODELS[3], 'gpt-4o')).toBe(0);
    expect(matchRank(MODELS[3], 'gpt')).toBe(1);
    expect(matchRank(MODELS[2], 'haiku')).toBe(2);
    expect(matchRank(MODELS[4], 'claude')).toBe(3);
  });

  it('filters to the models available here', () => {
    expect(ids(queryCatalog(MODELS, query({ available: true }), new Map()))).toEqual(['openai/gpt-4o', 'mock/chat']);
  });
});

import { describe, expect, it } from 'vitest';
import { readCatalogFilters, writeCatalogFilters } from './catalog-query';

describe('catalog filters in the URL (issue 28)', () => {
  it('defaults to most used, descending: the most used models first, not the least', () => {
    const state = readCatalogFilters(new URLSearchParams());
    expect(state).toMatchObject({ sort: 'popularity', order: 'desc', available: false });
    expect(writeCatalogFilters(state).toString()).toBe('');
  });

  it('keeps each sort in its natural order unless reversed, and the available-here filter', () => {
    expect(readCatalogFilters(new URLSearchParams('sort=name')).order).toBe('asc');
    expect(readCatalogFilters(new URLSearchParams('sort=newest')).order).toBe('desc');
    const reversed = readCatalogFilters(new URLSearchParams('sort=popularity&order=asc&available=1'));
    expect(reversed).toMatchObject({ order: 'asc', available: true });
    expect(writeCatalogFilters(reversed).toString()).toBe('available=1&order=asc');
  });
});

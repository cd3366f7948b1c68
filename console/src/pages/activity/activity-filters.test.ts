import { describe, expect, it } from 'vitest';
import { filtersFromSearch, searchFromFilters } from './activity-filters';

describe('activity filters in the address', () => {
  it('reads known, non-blank filters and ignores the rest', () => {
    const filters = filtersFromSearch(
      new URLSearchParams('key_id=k1&status=error&model=%20&cursor=x&app=Plum%20Notes'),
    );
    expect(filters).toEqual({ key_id: 'k1', status: 'error', app: 'Plum Notes' });
  });

  it('writes them back in a fixed order, with extra parameters (export format)', () => {
    expect(searchFromFilters({ status: 'ok', start_date: '2026-01-01' }, { format: 'csv' })).toBe(
      'start_date=2026-01-01&status=ok&format=csv',
    );
    expect(searchFromFilters({})).toBe('');
  });
});

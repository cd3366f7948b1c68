import { describe, expect, it } from 'vitest';
import { parseDateRange } from './usage-date-range.js';

const NOW = Date.UTC(2025, 5, 15, 13, 45);

describe('parseDateRange', () => {
  it('defaults to the last 30 days, today included', () => {
    expect(parseDateRange({}, NOW)).toMatchObject({
      startDate: '2025-05-17',
      endDate: '2025-06-15',
      days: 30,
      startMs: Date.UTC(2025, 4, 17),
      endMs: Date.UTC(2025, 5, 16),
    });
  });

  it('fills a missing side with 30 days', () => {
    expect(parseDateRange({ end_date: '2025-03-31' }, NOW)).toMatchObject({
      startDate: '2025-03-02',
      endDate: '2025-03-31',
    });
    expect(parseDateRange({ start_date: '2025-01-01' }, NOW)).toMatchObject({
      startDate: '2025-01-01',
      endDate: '2025-01-30',
    });
    expect(parseDateRange({ start_date: '2025-06-10' }, NOW)).toMatchObject({
      startDate: '2025-06-10',
      endDate: '2025-06-15',
    });
  });

  it('accepts one day and 366 days, refuses 367', () => {
    expect(parseDateRange({ start_date: '2024-02-29', end_date: '2024-02-29' }, NOW).days).toBe(1);
    expect(parseDateRange({ start_date: '2024-01-01', end_date: '2024-12-31' }, NOW).days).toBe(366);
    expect(() => parseDateRange({ start_date: '2023-01-01', end_date: '2024-01-02' }, NOW)).toThrow(
      expect.objectContaining({ code: 'date_range_too_long', param: 'end_date', status: 400 }),
    );
  });

  it.each([
    ['2025-02-30', 'start_date'],
    ['2025-13-01', 'start_date'],
    ['2023-02-29', 'start_date'],
    ['25-01-01', 'start_date'],
    ['2025-1-1', 'start_date'],
    ['2025-01-01T00:00:00Z', 'start_date'],
    ['', 'start_date'],
    ['yesterday', 'end_date'],
  ])('refuses %s as %s', (value, param) => {
    expect(() => parseDateRange({ [param]: value }, NOW)).toThrow(
      expect.objectContaining({ code: 'invalid_date', param, status: 400 }),
    );
  });

  it('refuses a start after the end', () => {
    expect(() => parseDateRange({ start_date: '2025-02-02', end_date: '2025-02-01' }, NOW)).toThrow(
      expect.objectContaining({ code: 'invalid_date_range', param: 'start_date' }),
    );
  });
});

import { describe, expect, it } from 'vitest';
import {
  formatCompact,
  formatContext,
  formatCount,
  formatDay,
  formatDuration,
  formatMoney,
  formatMoneyExact,
  formatPercent,
  formatPricePerMillion,
  formatTokensPerSecond,
  lastDaysRange,
  monthToDateRange,
} from './format';

describe('formatting', () => {
  it('writes money with its currency, cents for ordinary amounts', () => {
    expect(formatMoney(25, 'usd', 'en-US')).toBe('$25.00');
    expect(formatMoney(1234.5, 'USD', 'en-US')).toBe('$1,234.50');
    expect(formatMoney(0, 'USD', 'en-US')).toBe('$0.00');
    expect(formatMoney(19.99, 'eur', 'de-DE')).toBe('19,99\u00a0€');
  });

  it('never rounds a balance up to the next cent: $9.999818 is not "$10.00" (issue 28)', () => {
    expect(formatMoney(9.999818, 'USD', 'en-US')).toBe('$9.9998');
    expect(formatMoney(0.019999, 'USD', 'en-US')).toBe('$0.0199');
    expect(formatMoney(10.5, 'USD', 'en-US')).toBe('$10.50');
    expect(formatMoney(-3.14159, 'USD', 'en-US')).toBe('-$3.1415');
    expect(formatMoneyExact(9.999818, 'USD', 'en-US')).toBe('$9.999818');
    expect(formatMoneyExact(25, 'USD', 'en-US')).toBe('$25.00');
  });

  it('keeps significant digits of sub-cent usage costs instead of showing $0.00', () => {
    expect(formatMoney(0.0000915, 'USD', 'en-US')).toBe('$0.0000915');
    expect(formatMoney(0.001234, 'USD', 'en-US')).toBe('$0.00123');
  });

  it('groups token counts and abbreviates for axes', () => {
    expect(formatCount(1234567, 'en-US')).toBe('1,234,567');
    expect(formatCount(1234567, 'de-DE')).toBe('1.234.567');
    expect(formatCompact(1_250_000, 'en-US')).toBe('1.3M');
    expect(formatContext(128000, 'en-US')).toBe('128K tokens');
    expect(formatContext(null, 'en-US')).toBe('—');
  });

  it('writes catalog prices per million tokens, free and unknown distinctly', () => {
    expect(formatPricePerMillion('0.5', 'en-US')).toBe('$0.50 / M');
    expect(formatPricePerMillion('0', 'en-US')).toBe('free');
    expect(formatPricePerMillion(null, 'en-US')).toBe('—');
    // A model with no known price answers `pricing: null` (the generated types say so); pages pass `pricing?.prompt`.
    expect(formatPricePerMillion(undefined, 'en-US')).toBe('—');
  });

  it('writes ratios, durations and throughput, with a dash for nothing measured', () => {
    expect(formatPercent(0.987, 'en-US')).toBe('98.7%');
    expect(formatPercent(null, 'en-US')).toBe('—');
    expect(formatDuration(840, 'en-US')).toBe('840 ms');
    expect(formatDuration(1250, 'en-US')).toBe('1.25 s');
    expect(formatDuration(null, 'en-US')).toBe('—');
    expect(formatTokensPerSecond(4000, 'en-US')).toBe('4,000 tok/s');
  });

  it('names UTC days and computes the API date ranges', () => {
    expect(formatDay('2026-11-23', 'en-US')).toBe('Nov 23');
    const now = new Date('2026-11-23T21:00:00Z');
    expect(lastDaysRange(30, now)).toEqual({ start: '2026-10-25', end: '2026-11-23' });
    expect(monthToDateRange(now)).toEqual({ start: '2026-11-01', end: '2026-11-23' });
  });
});

import { describe, expect, it } from 'vitest';
import { backoffDelayMs, parseRetryAfterMs } from './retry-policy.js';

describe('backoffDelayMs', () => {
  it('grows exponentially up to the cap, scaled by the jitter', () => {
    expect(backoffDelayMs(0, 250, 4000, () => 0.999)).toBe(249);
    expect(backoffDelayMs(2, 250, 4000, () => 0.5)).toBe(500);
    expect(backoffDelayMs(10, 250, 4000, () => 0.5)).toBe(2000);
    expect(backoffDelayMs(3, 250, 4000, () => 0)).toBe(0);
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    [{ 'retry-after': '2' }, 2000],
    [{ 'retry-after': '0.5' }, 500],
    [{ 'retry-after': ['3', '9'] }, 3000],
    [{ 'retry-after-ms': '120' }, 120],
    [{ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }, 5000],
    [{ 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }, 0],
    [{ 'retry-after': 'soon' }, null],
    [{}, null],
  ])('%j → %s', (headers, expected) => {
    expect(parseRetryAfterMs(headers as Record<string, string>, now)).toBe(expected);
  });
});

import { describe, expect, it } from 'vitest';
import { percentile, summarize } from './percentiles.js';

describe('percentile (nearest rank)', () => {
  it.each([
    [[5], 0.5, 5],
    [[1, 2, 3, 4], 0.5, 2],
    [[4, 3, 2, 1], 0.99, 4],
    [[10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 0.9, 90],
    [[10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 0.91, 100],
    [[3, 1, 2], 0, 1],
  ])('%j at %d is %d', (samples, fraction, expected) => {
    expect(percentile(samples, fraction)).toBe(expected);
  });

  it("is NaN without samples, and never reorders the caller's array", () => {
    expect(percentile([], 0.5)).toBeNaN();
    const samples = [3, 1, 2];
    summarize(samples);
    expect(samples).toEqual([3, 1, 2]);
  });

  it('summarizes p50, p90, p99 and max', () => {
    const samples = Array.from({ length: 1000 }, (_, index) => index + 1);
    expect(summarize(samples)).toEqual({ count: 1000, p50: 500, p90: 900, p99: 990, max: 1000 });
  });
});

import { describe, expect, it } from 'vitest';
import { HISTOGRAM_SIZE, histogramPercentile, latencyBucketIndex } from './latency-histogram.js';

const histogram = (values: number[]) => {
  const counts = new Array<number>(HISTOGRAM_SIZE).fill(0);
  for (const value of values) counts[latencyBucketIndex(value)] += 1;
  return counts;
};

describe('histogramPercentile (issue 28: not bucket edges)', () => {
  it('interpolates inside the bucket: p50 and p95 of 17–20 ms are not both "25 ms"', () => {
    const counts = histogram([17, 18, 18, 19, 20, 17, 18, 19, 20, 20]);
    const p50 = histogramPercentile(counts, 0.5)!;
    const p95 = histogramPercentile(counts, 0.95)!;
    expect(p50).toBe(12.5);
    expect(p95).toBe(23.8);
    expect(p50).toBeLessThan(p95);
  });

  it('spreads across buckets, stays within the bucket of the true value, and is null when empty', () => {
    // 100 values: 50 in (0, 25], 50 in (100, 150].
    const counts = histogram([...Array(50).fill(10), ...Array(50).fill(120)]);
    expect(histogramPercentile(counts, 0.5)).toBe(25);
    expect(histogramPercentile(counts, 0.75)).toBe(125);
    expect(histogramPercentile(counts, 1)).toBe(150);
    expect(histogramPercentile(new Array(HISTOGRAM_SIZE).fill(0), 0.5)).toBeNull();
    expect(histogramPercentile(histogram([90_000]), 0.5)).toBe(60_000);
  });
});

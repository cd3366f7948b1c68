import { describe, expect, it } from 'vitest';
import { measureStreamChunkCost, renderStreamChunkCost } from './stream-chunk-cost.js';

describe('the in-process stream chunk cost (npm run bench)', () => {
  it('measures every path (each checks its usage was read) and prints a row for each', () => {
    const cost = measureStreamChunkCost(20, 1);
    for (const key of [
      'messagesTranslated',
      'messagesNative',
      'chatTranslated',
      'chatNative',
      'chatNativeUsageHidden',
      'chatBenchStream',
    ] as const)
      expect(cost[key]).toBeGreaterThanOrEqual(0);
    const table = renderStreamChunkCost(cost);
    expect(table).toMatch(/Messages → Anthropic/);
    expect(table).toMatch(/usage chunk hidden/);
    expect(table).toMatch(/the benchmark's stream/);
  });
});

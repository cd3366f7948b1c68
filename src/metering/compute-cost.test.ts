import { describe, expect, it } from 'vitest';
import type { Pricing } from '../config/gateway-config.js';
import { computeCostNanos, maximumCostNanos, type TokenCounts } from './compute-cost.js';
import { microsToNanos, nanosToUsd, parseUsdAmount, usdToNanos } from './money.js';

const pricing = (prompt: number, completion: number, extra: Partial<Pricing> = {}): Pricing => ({
  promptMicros: prompt,
  completionMicros: completion,
  cacheReadMicros: null,
  cacheWriteMicros: null,
  perRequestMicros: 0,
  perSearchMicros: 0,
  ...extra,
});
const tokens = (promptTokens: number, completionTokens: number, extra: Partial<TokenCounts> = {}): TokenCounts => ({
  promptTokens,
  completionTokens,
  cachedTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  ...extra,
});

describe('computeCostNanos', () => {
  it.each([
    // prompt, completion, $/M prompt (micros), $/M completion (micros), expected nano-USD
    [1_000_000, 0, 500_000, 1_500_000, 500_000_000],
    [10, 20, 500_000, 1_500_000, 10 * 500 + 20 * 1500],
    [1, 1, 150_000, 600_000, 750],
    [3, 0, 37_500, 0, 113], // 112.5 → half up, the only rounding
    [123_456, 7_891, 2_500_000, 10_000_000, 123_456 * 2500 + 7_891 * 10_000],
    [0, 0, 500_000, 1_500_000, 0],
  ])(
    '%i prompt + %i completion tokens at %i/%i micro-USD per million = %i nano-USD',
    (prompt, completion, promptPrice, completionPrice, expected) => {
      expect(
        computeCostNanos(tokens(prompt, completion), pricing(promptPrice, completionPrice), { perRequest: false }),
      ).toBe(expected);
    },
  );

  it('prices cached prompt tokens at cache_read and the rest at the prompt price', () => {
    const cost = computeCostNanos(
      tokens(1000, 10, { cachedTokens: 600 }),
      pricing(2_000_000, 8_000_000, { cacheReadMicros: 500_000 }),
      { perRequest: false },
    );
    expect(cost).toBe(400 * 2000 + 600 * 500 + 10 * 8000);
  });

  it('adds the per-request price only when asked', () => {
    const price = pricing(0, 0, { perRequestMicros: 5_000 });
    expect(computeCostNanos(tokens(1, 1), price, { perRequest: true })).toBe(5_000_000);
    expect(computeCostNanos(tokens(1, 1), price, { perRequest: false })).toBe(0);
  });

  it('stays exact where floats would not (0.15 × 1e6 is 149999.99999999997 in floats)', () => {
    const sum = Array.from({ length: 1000 }, () =>
      computeCostNanos(tokens(7, 3), pricing(150_000, 600_000), { perRequest: false }),
    ).reduce((a, b) => a + b, 0);
    expect(sum).toBe(1000 * (7 * 150 + 3 * 600));
  });

  it('holds the full prompt price and every possible output token', () => {
    expect(maximumCostNanos(100, 50, pricing(500_000, 1_500_000, { cacheReadMicros: 1 }))).toBe(100 * 500 + 50 * 1500);
  });
});

describe('money', () => {
  it('converts USD strings to nano-USD and back without floats', () => {
    expect(usdToNanos('12.5')).toBe(12_500_000_000);
    expect(usdToNanos(0.1)).toBe(100_000_000);
    expect(nanosToUsd(1)).toBe('0.000000001');
    expect(nanosToUsd(12_500_000_000)).toBe('12.5');
    expect(microsToNanos(3)).toBe(3000);
    expect(parseUsdAmount('10.25')).toBe(10_250_000_000);
    expect(parseUsdAmount('-1')).toBeNull();
    expect(parseUsdAmount('0')).toBeNull();
    expect(parseUsdAmount('1e3')).toBeNull();
    expect(parseUsdAmount('0.0000000001')).toBeNull();
  });
});

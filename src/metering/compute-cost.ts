import type { Pricing } from '../config/gateway-config.js';

/** Token counts of one request, split by how they are priced. */
export interface TokenCounts {
  /** All prompt tokens, cached ones included (as OpenAI reports them). */
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens read from the provider's cache (priced at cache_read when set). */
  cachedTokens: number;
  /** Prompt tokens written to the cache (priced at cache_write when set). */
  cacheWriteTokens: number;
  /** Part of completionTokens; priced as completion tokens, recorded for reports. */
  reasoningTokens: number;
}

/**
 * The cost of a request in nano-USD. Prices are integer micro-USD per million tokens, so
 * tokens × price is an exact integer count of pico-USD; it is divided by 1000 once, at the end,
 * rounding half up. For prices with at most three decimals per million tokens (nearly all) the
 * division is exact, so the figure is exactly tokens × price.
 */
export function computeCostNanos(tokens: TokenCounts, pricing: Pricing, options: { perRequest: boolean }): number {
  const cached = clampCount(tokens.cachedTokens);
  const cacheWrite = clampCount(tokens.cacheWriteTokens);
  const uncachedPrompt = Math.max(0, clampCount(tokens.promptTokens) - cached - cacheWrite);
  let pico =
    BigInt(uncachedPrompt) * BigInt(pricing.promptMicros) +
    BigInt(cached) * BigInt(pricing.cacheReadMicros ?? pricing.promptMicros) +
    BigInt(cacheWrite) * BigInt(pricing.cacheWriteMicros ?? pricing.promptMicros) +
    BigInt(clampCount(tokens.completionTokens)) * BigInt(pricing.completionMicros);
  if (options.perRequest) pico += BigInt(pricing.perRequestMicros) * 1_000_000n;
  return Number((pico + 500n) / 1000n);
}

/** The most a request can cost: its prompt estimate plus every output token it may produce. */
export function maximumCostNanos(promptTokens: number, maxOutputTokens: number, pricing: Pricing): number {
  return computeCostNanos(
    { promptTokens, completionTokens: maxOutputTokens, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
    // Cache discounts are not known in advance: hold at the full prompt price.
    { ...pricing, cacheReadMicros: null, cacheWriteMicros: null },
    { perRequest: true },
  );
}

function clampCount(value: number): number {
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

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

/** The parts of a request's cost in pico-USD (exact integers: tokens × micro-USD per million tokens). */
export interface CostPartsPico {
  prompt: bigint;
  cacheRead: bigint;
  cacheWrite: bigint;
  completion: bigint;
  request: bigint;
}

/** The cost of a request split by what is priced (pico-USD, exact). computeCostNanos sums these. */
export function computeCostParts(
  tokens: TokenCounts,
  pricing: Pricing,
  options: { perRequest: boolean },
): CostPartsPico {
  const cached = clampCount(tokens.cachedTokens);
  const cacheWrite = clampCount(tokens.cacheWriteTokens);
  const uncachedPrompt = Math.max(0, clampCount(tokens.promptTokens) - cached - cacheWrite);
  return {
    prompt: BigInt(uncachedPrompt) * BigInt(pricing.promptMicros),
    cacheRead: BigInt(cached) * BigInt(pricing.cacheReadMicros ?? pricing.promptMicros),
    cacheWrite: BigInt(cacheWrite) * BigInt(pricing.cacheWriteMicros ?? pricing.promptMicros),
    completion: BigInt(clampCount(tokens.completionTokens)) * BigInt(pricing.completionMicros),
    request: options.perRequest ? BigInt(pricing.perRequestMicros) * 1_000_000n : 0n,
  };
}

/** Pico-USD → nano-USD, rounding half up (the one rounding of every charge). */
export function picoToNanos(pico: bigint): number {
  return Number((pico + 500n) / 1000n);
}

/**
 * The cost of a request in nano-USD. Prices are integer micro-USD per million tokens, so
 * tokens × price is an exact integer count of pico-USD; it is divided by 1000 once, at the end,
 * rounding half up. For prices with at most three decimals per million tokens (nearly all) the
 * division is exact, so the figure is exactly tokens × price.
 */
export function computeCostNanos(tokens: TokenCounts, pricing: Pricing, options: { perRequest: boolean }): number {
  const parts = computeCostParts(tokens, pricing, options);
  return picoToNanos(parts.prompt + parts.cacheRead + parts.cacheWrite + parts.completion + parts.request);
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

import type { RouteCandidate } from './model-directory.js';
import type { EndpointFigures } from './endpoint-stats.js';
import type { ProviderPreferences } from './provider-preferences.js';
import { candidateKey } from './endpoint-key.js';

export interface RankEndpointsInput {
  /** The endpoints of one model (not changed: the directory shares the list between requests). */
  candidates: readonly RouteCandidate[];
  preferences: ProviderPreferences;
  figures: (key: string) => EndpointFigures;
  /** [0, 1), injected so weighted choices are testable. */
  random: () => number;
}

/**
 * The order in which one model's endpoints are tried. Pure.
 *
 * Default: lower `priority` first; inside one priority, endpoints with different weights are
 * load-balanced by a weighted random order, and endpoints of equal weight go cheapest first.
 * `provider.sort` replaces that order with price, measured latency or measured throughput
 * (unmeasured endpoints last). `only`, `ignore` and `max_price` remove endpoints; `order`
 * puts the named providers first, and `allow_fallbacks: false` keeps only those (or, without
 * `order`, only the first choice).
 */
export function rankEndpoints(input: RankEndpointsInput): RouteCandidate[] {
  const { preferences } = input;
  let pool = input.candidates.filter((candidate) => {
    const providerId = candidate.provider.id;
    if (preferences.only && !preferences.only.includes(providerId)) return false;
    if (preferences.ignore?.includes(providerId)) return false;
    return withinMaxPrice(candidate, preferences.maxPrice);
  });
  pool = preferences.sort ? sortBy(pool, preferences.sort, input.figures) : defaultOrder(pool, input.random);
  if (preferences.order) {
    const order = preferences.order;
    const listed = order.flatMap((providerId) => pool.filter((candidate) => candidate.provider.id === providerId));
    const rest = pool.filter((candidate) => !order.includes(candidate.provider.id));
    return preferences.allowFallbacks ? [...listed, ...rest] : listed;
  }
  return preferences.allowFallbacks ? pool : pool.slice(0, 1);
}

function withinMaxPrice(candidate: RouteCandidate, maxPrice: ProviderPreferences['maxPrice']): boolean {
  if (!maxPrice) return true;
  const pricing = candidate.endpoint.pricing;
  if (maxPrice.promptMicros !== null && pricing.promptMicros > maxPrice.promptMicros) return false;
  if (maxPrice.completionMicros !== null && pricing.completionMicros > maxPrice.completionMicros) return false;
  if (maxPrice.requestMicros !== null && pricing.perRequestMicros > maxPrice.requestMicros) return false;
  return true;
}

function price(candidate: RouteCandidate): number {
  return candidate.endpoint.pricing.promptMicros + candidate.endpoint.pricing.completionMicros;
}

function sortBy(
  pool: RouteCandidate[],
  sort: 'price' | 'throughput' | 'latency',
  figures: (key: string) => EndpointFigures,
): RouteCandidate[] {
  const measure = (candidate: RouteCandidate): number => {
    if (sort === 'price') return price(candidate);
    const measured = figures(candidateKey(candidate));
    // Higher throughput is better, so negate it; unmeasured endpoints sort last either way.
    if (sort === 'throughput')
      return measured.throughputTokensPerSecond === null ? Infinity : -measured.throughputTokensPerSecond;
    return measured.latencyMs ?? Infinity;
  };
  return [...pool].sort((a, b) => compareNumbers(measure(a), measure(b)) || a.endpoint.priority - b.endpoint.priority);
}

function defaultOrder(pool: RouteCandidate[], random: () => number): RouteCandidate[] {
  // One endpoint (most models): nothing to order, and no tiers, sets or sorts made per request.
  if (pool.length <= 1) return pool;
  const tiers = new Map<number, RouteCandidate[]>();
  for (const candidate of pool) {
    const tier = tiers.get(candidate.endpoint.priority) ?? [];
    tier.push(candidate);
    tiers.set(candidate.endpoint.priority, tier);
  }
  return [...tiers.entries()]
    .sort(([a], [b]) => a - b)
    .flatMap(([, tier]) => {
      const weights = new Set(tier.map((candidate) => candidate.endpoint.weight));
      if (weights.size <= 1) return [...tier].sort((a, b) => price(a) - price(b));
      // Weighted random order (each endpoint keyed by u^(1/weight), largest first): the first
      // pick is proportional to weight, and the rest stay in line as fallbacks.
      return tier
        .map((candidate) => ({ candidate, key: Math.pow(random(), 1 / candidate.endpoint.weight) }))
        .sort((a, b) => b.key - a.key)
        .map((entry) => entry.candidate);
    });
}

function compareNumbers(a: number, b: number): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

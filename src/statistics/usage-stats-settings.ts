import { ConfigError } from '../config/load-config.js';

/**
 * `catalog.stats_cache_ms` (default 5000): how long a statistics answer is reused. 0 computes every
 * answer afresh (the statistics benchmark measures both).
 */
export function statsCacheMs(section: Record<string, unknown> | undefined): number {
  const value = section?.stats_cache_ms ?? 5000;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw new ConfigError(
      `catalog.stats_cache_ms must be a whole number of milliseconds ≥ 0 (got ${JSON.stringify(value)}).`,
    );
  return value;
}

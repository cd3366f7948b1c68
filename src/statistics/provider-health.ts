import type { DescribedTotals } from './rollup-queries.js';

/**
 * Health of a provider (or one of its endpoints) from its measured traffic: every upstream attempt
 * counts, fallbacks included (usage-stats-event.ts). Uptime is the share of attempts that did not
 * fail on the provider's side (refused, timed out, 5xx, an answer that would not parse).
 */
const HEALTH_THRESHOLDS = {
  /** Below this uptime the provider is `down`. */
  down: 0.5,
  /** Below this uptime (and at or above `down`) it is `degraded`; at or above, `active`. */
  degraded: 0.95,
} as const;

export type HealthStatus = 'active' | 'degraded' | 'down' | 'unknown';

/** No traffic is `unknown`; otherwise the uptime against HEALTH_THRESHOLDS. */
export function healthStatus(stats: Pick<DescribedTotals, 'requests' | 'uptime'> | undefined): HealthStatus {
  if (!stats || stats.requests === 0 || stats.uptime === null) return 'unknown';
  if (stats.uptime < HEALTH_THRESHOLDS.down) return 'down';
  if (stats.uptime < HEALTH_THRESHOLDS.degraded) return 'degraded';
  return 'active';
}

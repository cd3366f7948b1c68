import type { Granularity } from './rollup-schema.js';

/**
 * The windows every statistics reader accepts: provider statistics (spec §4.7: 1h, 24h, 7d) and
 * the rankings alike. Each is a number of rollup buckets at one granularity, the current (partial)
 * bucket included. 30d exists so the rankings' `month` has a name of the same kind.
 */
export const STATS_WINDOWS = {
  '1h': { granularity: 'minute', count: 60 },
  '24h': { granularity: 'hour', count: 24 },
  '7d': { granularity: 'day', count: 7 },
  '30d': { granularity: 'day', count: 30 },
} as const satisfies Record<string, { granularity: Granularity; count: number }>;
export type StatsWindow = keyof typeof STATS_WINDOWS;

/** The rankings' own names, kept as aliases: day = 24h, week = 7d, month = 30d. */
const WINDOW_ALIASES = { day: '24h', week: '7d', month: '30d' } as const satisfies Record<string, StatsWindow>;

/** Every accepted spelling, canonical names first (what enum errors list). */
export const WINDOW_NAMES = [...Object.keys(STATS_WINDOWS), ...Object.keys(WINDOW_ALIASES)] as readonly string[];

/** An accepted window name (already validated against WINDOW_NAMES) → its canonical name. */
export function canonicalWindow(name: string): StatsWindow {
  if (name in STATS_WINDOWS) return name as StatsWindow;
  const alias = WINDOW_ALIASES[name as keyof typeof WINDOW_ALIASES];
  if (alias === undefined) throw new RangeError(`unknown statistics window '${name}'`);
  return alias;
}

/**
 * Waiting between rounds of attempts. Pure: the random source and the time are passed in.
 */

/** "Full jitter" exponential backoff: a random wait up to base × 2^round, capped. */
export function backoffDelayMs(round: number, baseMs: number, maxMs: number, random: () => number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** round);
  return Math.floor(random() * ceiling);
}

/**
 * A `retry-after` header (seconds, or an HTTP date) → milliseconds from `now`; null when absent
 * or unreadable. Also reads `retry-after-ms`, which some providers send for sub-second waits.
 */
export function parseRetryAfterMs(
  headers: Record<string, string | string[] | undefined> | undefined,
  now: number,
): number | null {
  if (!headers) return null;
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)?.trim();
  const milliseconds = first(headers['retry-after-ms']);
  if (milliseconds && /^\d+(\.\d+)?$/.test(milliseconds)) return Math.ceil(Number(milliseconds));
  const value = first(headers['retry-after']);
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

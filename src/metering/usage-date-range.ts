import { InvalidRequestError } from '../shared/errors.js';

const DAY_MS = 86_400_000;
const MAX_RANGE_DAYS = 366;
const DEFAULT_RANGE_DAYS = 30;

export interface DateRange {
  startDate: string;
  endDate: string;
  /** Epoch ms of start_date 00:00 UTC. */
  startMs: number;
  /** Epoch ms of the day after end_date, 00:00 UTC (exclusive). */
  endMs: number;
  days: number;
}

/**
 * The usage report's range (pure): YYYY-MM-DD dates in UTC, both days included, start ≤ end,
 * at most 366 days. Missing dates default to the 30 days ending today (or ending at end_date,
 * or starting at start_date).
 */
export function parseDateRange(query: { start_date?: string; end_date?: string }, now: number): DateRange {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const start = query.start_date === undefined ? null : parseDay(query.start_date, 'start_date');
  const end = query.end_date === undefined ? null : parseDay(query.end_date, 'end_date');
  const endMs =
    end ?? (start !== null ? Math.min(start + (DEFAULT_RANGE_DAYS - 1) * DAY_MS, Math.max(today, start)) : today);
  const startMs = start ?? endMs - (DEFAULT_RANGE_DAYS - 1) * DAY_MS;
  if (startMs > endMs)
    throw new InvalidRequestError('start_date must be on or before end_date.', 'start_date', 'invalid_date_range');
  const days = (endMs - startMs) / DAY_MS + 1;
  if (days > MAX_RANGE_DAYS)
    throw new InvalidRequestError(
      `The range covers ${days} days; at most ${MAX_RANGE_DAYS} are allowed.`,
      'end_date',
      'date_range_too_long',
    );
  return { startDate: formatDay(startMs), endDate: formatDay(endMs), startMs, endMs: endMs + DAY_MS, days };
}

export function formatDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function parseDay(text: string, param: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const ms = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  // Date.UTC rolls 2025-02-30 over to March; a real date formats back to itself.
  if (!match || Number.isNaN(ms) || formatDay(ms) !== text) {
    throw new InvalidRequestError(
      `${param} must be a calendar date in the form YYYY-MM-DD (got '${text}').`,
      param,
      'invalid_date',
    );
  }
  return ms;
}

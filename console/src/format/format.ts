/**
 * Number and date formatting for every page, one place so the whole console reads the same.
 * Locale: the browser's (navigator.language), falling back to en-US; tests pass one explicitly.
 */
const defaultLocale = (): string => (typeof navigator !== 'undefined' && navigator.language) || 'en-US';

/** Money with its currency. Small amounts (usage costs of a fraction of a cent) keep significant digits. */
export function formatMoney(amount: number, currency = 'USD', locale = defaultLocale()): string {
  const code = currency.toUpperCase();
  const absolute = Math.abs(amount);
  if (absolute !== 0 && absolute < 0.01) {
    return new Intl.NumberFormat(locale, {
      style: 'currency',
      currency: code,
      minimumSignificantDigits: 1,
      maximumSignificantDigits: 3,
    }).format(amount);
  }
  // Whole cents read as usual ($25.00). Anything finer keeps four decimals, cut rather than rounded, so
  // a balance of $9.999818 reads $9.9998 and never "$10.00", which would promise money that is not there.
  const wholeCents = Math.abs(amount * 100 - Math.round(amount * 100)) < 1e-6;
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: code,
    minimumFractionDigits: 2,
    maximumFractionDigits: wholeCents ? 2 : 4,
    roundingMode: 'trunc',
  } as Intl.NumberFormatOptions).format(amount);
}

/** The exact amount, for a tooltip: every nano-USD digit there is ($9.999818), at least two decimals. */
export function formatMoneyExact(amount: number, currency = 'USD', locale = defaultLocale()): string {
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: currency.toUpperCase(),
    minimumFractionDigits: 2,
    maximumFractionDigits: 9,
  }).format(amount);
}

/** A price in USD per million tokens, given as the catalog's decimal string; null is "—". */
export function formatPricePerMillion(price: string | null | undefined, locale = defaultLocale()): string {
  if (price === null || price === undefined || price === '') return '—';
  const value = Number(price);
  if (!Number.isFinite(value)) return '—';
  if (value === 0) return 'free';
  return `${formatMoney(value, 'USD', locale)} / M`;
}

/** Whole counts (tokens, requests) with group separators: 1,234,567. */
export function formatCount(value: number, locale = defaultLocale()): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(value);
}

/** Short counts for chart axes and tiles: 1.2K, 3.4M. */
export function formatCompact(value: number, locale = defaultLocale()): string {
  return new Intl.NumberFormat(locale, { notation: 'compact', maximumFractionDigits: 1 }).format(value);
}

/** A ratio 0–1 as a percentage; null (nothing measured) is "—". */
export function formatPercent(ratio: number | null | undefined, locale = defaultLocale(), digits = 1): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return '—';
  return new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: digits }).format(ratio);
}

/** Milliseconds: "840 ms" below a second, "1.25 s" above; null is "—". */
export function formatDuration(milliseconds: number | null | undefined, locale = defaultLocale()): string {
  if (milliseconds === null || milliseconds === undefined || !Number.isFinite(milliseconds)) return '—';
  if (milliseconds < 1000) return `${formatCount(Math.round(milliseconds), locale)} ms`;
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }).format(milliseconds / 1000)} s`;
}

/** Throughput in tokens per second; null is "—". */
export function formatTokensPerSecond(value: number | null | undefined, locale = defaultLocale()): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return `${formatCount(Math.round(value), locale)} tok/s`;
}

/** A context window in tokens: "128K tokens"; null is "—". */
export function formatContext(tokens: number | null | undefined, locale = defaultLocale()): string {
  if (tokens === null || tokens === undefined) return '—';
  return `${formatCompact(tokens, locale)} tokens`;
}

/** An ISO timestamp as a date and time in the reader's zone; null is the fallback text. */
export function formatDateTime(iso: string | null | undefined, locale = defaultLocale(), fallback = '—'): string {
  if (!iso) return fallback;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return fallback;
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}

/** A calendar day (YYYY-MM-DD, UTC as the API counts them) as "Nov 23". */
export function formatDay(day: string, locale = defaultLocale()): string {
  const date = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return day;
  return new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(date);
}

/** Today and the day N-1 days before it, as the API's UTC YYYY-MM-DD range. */
export function lastDaysRange(days: number, now = new Date()): { start: string; end: string } {
  const end = now.toISOString().slice(0, 10);
  const start = new Date(now.getTime() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  return { start, end };
}

/** The first day of the current UTC month and today. */
export function monthToDateRange(now = new Date()): { start: string; end: string } {
  const end = now.toISOString().slice(0, 10);
  return { start: `${end.slice(0, 7)}-01`, end };
}

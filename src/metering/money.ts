import { decimalToUnits, unitsToDecimal } from '../shared/decimal.js';

/**
 * The project's one money unit: integer nano-USD (1 USD = 1,000,000,000 units).
 *
 * Why nano and not micro: a cheap model costs $0.15 per million tokens, i.e. 0.15 micro-USD a
 * token, so micro-units would round almost every small request. In nano-USD a token at any price
 * with up to three decimals per million tokens is a whole number, and a JavaScript number still
 * holds balances up to about $9 million exactly (Number.MAX_SAFE_INTEGER nano-USD).
 */
export const USD_DECIMALS = 9;

/** "12.5" (or 12.5) USD → 12_500_000_000 units, exactly; more than 9 decimals is an error. */
export function usdToNanos(usd: string | number): number {
  return decimalToUnits(usd, USD_DECIMALS);
}

/** Units → exact USD decimal string ("0.000001234"); no float ever touches the digits. */
export function nanosToUsd(nanos: number): string {
  return unitsToDecimal(nanos, USD_DECIMALS);
}

/** Units → a JSON number of USD, for presentation only (the exact figure is the integer). */
export function nanosToUsdNumber(nanos: number): number {
  return Number(nanosToUsd(nanos));
}

/** Older columns (api_keys.monthly_quota_micros, config prices) hold micro-USD. */
export function microsToNanos(micros: number): number {
  return micros * 1000;
}

/** Parses a user-supplied USD amount: positive, at most 9 decimals; null when malformed. */
export function parseUsdAmount(text: string): number | null {
  if (!/^\d+(\.\d+)?$/.test(text.trim())) return null;
  try {
    const nanos = usdToNanos(text);
    return nanos > 0 ? nanos : null;
  } catch {
    return null;
  }
}

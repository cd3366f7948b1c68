import { unitsToDecimal } from '../shared/decimal.js';
import { InvalidRequestError } from '../shared/errors.js';

/**
 * The most one account may hold: 1,000,000 USD in nano-USD (issue 25, item 6).
 *
 * Money is integer nano-USD carried as JS numbers through the store drivers, Redis and the
 * responses; past 2^53 nano-USD (about 9,007,199 USD) a number is no longer exact: PostgreSQL's
 * driver refuses such a BIGINT (the account pages answered 500 and /v1 503) and SQLite hands back
 * a rounded double. Rather than carry bigint through every layer, balances are capped well below
 * that edge. Grants (the admin API, `gateway credits grant`) and new checkouts that would pass the
 * cap are refused with 400 `balance_limit_exceeded`; a payment already taken is always credited
 * (checkout counts pending orders, so only racing checkouts can pass the cap, never by 8 million
 * dollars), and every credit of any kind is refused before a balance could pass 2^53.
 */
export const MAX_BALANCE_NANOS = 1_000_000 * 1_000_000_000;

/** No balance may pass this, whatever the entry: the largest exact integer a JS number holds. */
export const HARD_BALANCE_LIMIT_NANOS = Number.MAX_SAFE_INTEGER;

const usd = (nanos: number) => unitsToDecimal(nanos, 9);

/**
 * The 400 for a credit of `amount` that would take `balance` past `limit` (all nano-USD);
 * `balanceName` says what `balance` counts (checkout adds the pending orders).
 */
export function balanceLimitExceeded(
  balance: number,
  amount: number,
  limit: number,
  balanceName = 'the balance is',
): InvalidRequestError {
  return new InvalidRequestError(
    `This would take the balance to ${usd(balance + amount)} USD; one account holds at most ${usd(limit)} USD ` +
      `(${balanceName} ${usd(balance)} USD, so at most ${usd(Math.max(0, limit - balance))} USD more).`,
    'amount',
    'balance_limit_exceeded',
  );
}

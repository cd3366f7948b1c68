import type { KeyLimits, RateCheck } from './rate-limit-window.js';

/** A pre-request hold: the most the request can cost, kept until its charge is committed. */
export interface Hold {
  id: string;
  userId: string;
  keyId: string | null;
  /** nano-USD. */
  amount: number;
  /** A hold left behind by a crashed instance stops counting after this time. */
  expiresAt: number;
  /** Count the hold against the user's balance (billing.require_credits). */
  trackUser: boolean;
  /** Count it against the key's monthly quota / credit limit. */
  trackKey: boolean;
}

export interface HoldLimits {
  /** The user's balance; the request is admitted when balance − open holds ≥ amount. */
  userBalance: number | null;
  /** monthly_quota − spend this month; admitted while it exceeds the key's open holds. */
  keyMonthRemaining: number | null;
  /** credit_limit − spend in total; same rule. */
  keyLifetimeRemaining: number | null;
}

export type HoldOutcome = 'held' | 'insufficient_credits' | 'quota_exceeded' | 'credit_limit_exceeded';

/**
 * Where rate-limit buckets and holds live: this process's memory, or Redis so that every
 * instance enforces one limit. Every operation is atomic in its backend.
 */
export interface LimitBackend {
  readonly name: string;
  checkRate(keyId: string, limits: KeyLimits, tokens: number, now: number): Promise<RateCheck>;
  /** After the request: correct the token bucket by actual − reserved tokens. */
  adjustTokens(keyId: string, limits: KeyLimits, deltaTokens: number, now: number): Promise<void>;
  reserve(hold: Hold, limits: HoldLimits, now: number): Promise<HoldOutcome>;
  release(hold: Hold): Promise<void>;
  /** The sum of a user's open holds (shown beside the balance). */
  heldForUser(userId: string, now: number): Promise<number>;
  close(): Promise<void>;
}

/** Pure: the hold rule shared by both backends (the Lua script mirrors it). */
export function decideHold(amount: number, limits: HoldLimits, userHeld: number, keyHeld: number): HoldOutcome {
  if (limits.keyMonthRemaining !== null && limits.keyMonthRemaining - keyHeld <= 0) return 'quota_exceeded';
  if (limits.keyLifetimeRemaining !== null && limits.keyLifetimeRemaining - keyHeld <= 0)
    return 'credit_limit_exceeded';
  if (limits.userBalance !== null && limits.userBalance - userHeld < amount) return 'insufficient_credits';
  return 'held';
}

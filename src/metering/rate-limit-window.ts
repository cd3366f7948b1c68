/**
 * Per-key request and token limits as a token bucket in GCRA form (generic cell rate algorithm):
 * one number per limit, the "theoretical arrival time" (tat). A limit of L per minute refills one
 * unit every 60000/L ms and holds at most L units. Admitting a cost c moves tat forward by
 * c × interval; it is refused when tat would run more than a minute ahead of now. One number per
 * key makes the Redis version a few lines of atomic Lua (see redis-hot-scripts.ts), which
 * computes exactly this.
 */
const LIMIT_PERIOD_MS = 60_000;

export interface LimitDecision {
  allowed: boolean;
  /** The tat to store if the whole admission goes through. */
  nextTat: number;
  /** How long until this cost would be admitted (0 when allowed). */
  retryAfterMs: number;
  /** Units left in the bucket after this admission (or now, when refused). */
  remaining: number;
  /** How long until the bucket is full again. */
  resetMs: number;
}

export function decideLimit(tat: number | null, now: number, cost: number, limit: number): LimitDecision {
  const interval = LIMIT_PERIOD_MS / limit;
  const start = Math.max(tat ?? now, now);
  const nextTat = start + cost * interval;
  const allowAt = nextTat - LIMIT_PERIOD_MS;
  if (allowAt > now) {
    return {
      allowed: false,
      nextTat: start,
      retryAfterMs: allowAt - now,
      remaining: Math.max(0, Math.floor((LIMIT_PERIOD_MS - (start - now)) / interval)),
      resetMs: start - now,
    };
  }
  return {
    allowed: true,
    nextTat,
    retryAfterMs: 0,
    remaining: Math.max(0, Math.floor((LIMIT_PERIOD_MS - (nextTat - now)) / interval)),
    resetMs: nextTat - now,
  };
}

/** After the request: move the token bucket by the difference between actual and reserved tokens. */
export function adjustTat(tat: number | null, now: number, deltaTokens: number, limit: number): number {
  return Math.max(tat ?? now, now) + (deltaTokens * LIMIT_PERIOD_MS) / limit;
}

export interface KeyLimits {
  rpmLimit: number | null;
  tpmLimit: number | null;
}

export interface RateCheck {
  allowed: boolean;
  /** Which limit refused: requests first, then tokens. */
  refusedBy: 'requests' | 'tokens' | null;
  retryAfterMs: number;
  requests: { limit: number; remaining: number; resetMs: number } | null;
  tokens: { limit: number; remaining: number; resetMs: number } | null;
}

/** Both limits at once: either both are charged or neither (a refused request uses no quota). */
export function decideRate(
  rpmTat: number | null,
  tpmTat: number | null,
  now: number,
  tokens: number,
  limits: KeyLimits,
): { check: RateCheck; rpmTat: number | null; tpmTat: number | null } {
  const requests = limits.rpmLimit ? decideLimit(rpmTat, now, 1, limits.rpmLimit) : null;
  const tokenDecision = limits.tpmLimit ? decideLimit(tpmTat, now, tokens, limits.tpmLimit) : null;
  const refusedBy =
    requests && !requests.allowed ? 'requests' : tokenDecision && !tokenDecision.allowed ? 'tokens' : null;
  const allowed = refusedBy === null;
  return {
    check: {
      allowed,
      refusedBy,
      retryAfterMs: Math.max(requests?.retryAfterMs ?? 0, tokenDecision?.retryAfterMs ?? 0),
      requests:
        requests && limits.rpmLimit
          ? { limit: limits.rpmLimit, remaining: requests.remaining, resetMs: requests.resetMs }
          : null,
      tokens:
        tokenDecision && limits.tpmLimit
          ? { limit: limits.tpmLimit, remaining: tokenDecision.remaining, resetMs: tokenDecision.resetMs }
          : null,
    },
    rpmTat: allowed && requests ? requests.nextTat : rpmTat,
    tpmTat: allowed && tokenDecision ? tokenDecision.nextTat : tpmTat,
  };
}

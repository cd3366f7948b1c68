import type { LeaseRequest } from './hot-counters.js';

/** This instance's view of its outage lease on one user. */
interface LeaseState {
  /** The lease as Redis last reported it (nano-USD set aside for this instance). */
  amount: number;
  /** Spent from it: open holds admitted from the lease, and their charges Redis has not debited yet. */
  spent: number;
  /** After this time no new request is admitted from the lease (half its time to live in Redis). */
  spendUntil: number;
  lastUsed: number;
  /** Redis calls in flight that may shrink the lease: no local spending until they answer. */
  shrinking: number;
  /** An admission that may have taken from the lease got no answer: no local spending until Redis answers again. */
  uncertain: boolean;
  /** The free balance Redis last reported. */
  free: number | null;
  /**
   * The order number (RedisHotCounters' leaseSeq) of the Redis call whose report `amount` is:
   * Redis runs this instance's calls in the order they were numbered, but their replies may be
   * handled out of order; an older report never replaces a newer one.
   */
  seq: number;
  /** Until this time requests may be admitted from the lease while Redis is healthy (local admission). */
  localUntil: number;
}

export interface OutageLeasesOptions {
  /** The lease is kept at 1/share of the user's free balance (topped up below half of that). */
  share: number;
  /** How long a lease counts in Redis after its last use (it expires like a hold if this instance dies). */
  ttlMs: number;
  /** A lease unused this long is given back (when nothing is spent from it). */
  idleMs?: number;
}

/** Lease figures reported by a Redis call, with the call's order number (RedisHotCounters.leaseSeq). */
export interface LeaseReport {
  amount: number;
  free: number;
  seq?: number;
}

/**
 * Outage leases (issue 25): with Redis, every admission that holds credit also keeps a small
 * part of the user's free balance set aside for this instance, in the same script (no extra
 * round trip). When Redis does not answer, this instance admits requests only from its own
 * lease, and refuses beyond it: what all instances spend during a fault is bounded by what Redis
 * had set aside before it, so the sum served never exceeds the balance. The bookkeeping here is
 * synchronous; the Redis calls are made by the caller (metering), which reports their answers.
 */
export class OutageLeases {
  readonly id: string;
  private readonly states = new Map<string, LeaseState>();
  private readonly idleMs: number;

  constructor(
    instanceId: string,
    private readonly options: OutageLeasesOptions,
  ) {
    this.id = `lease:${instanceId}`;
    this.idleMs = options.idleMs ?? 10_000;
  }

  /** What the admission asks of the lease. mayConvert only when the free balance looked short. */
  request(userId: string, amount: number, now: number, mayConvert = false): LeaseRequest {
    const state = this.states.get(userId);
    const spare = state ? state.amount - state.spent : 0;
    const short = state?.free !== null && state?.free !== undefined && state.free < amount * 4;
    return {
      id: this.id,
      floor: state?.spent ?? 0,
      share: this.options.share,
      expiresAt: now + this.options.ttlMs,
      mayConvert: spare > 0 && (mayConvert || short),
    };
  }

  /** A Redis call that may shrink the lease is sent. */
  sending(userId: string, request: LeaseRequest | undefined): void {
    if (request?.mayConvert) this.state(userId).shrinking++;
  }

  /** Redis answered an admission: the lease and the free balance as they are now. */
  answered(userId: string, request: LeaseRequest | undefined, figures: LeaseReport | undefined, now: number) {
    const state = this.state(userId);
    if (request?.mayConvert) state.shrinking--;
    state.uncertain = false;
    if (!figures) return;
    // The lease's expiry in Redis was refreshed by this call (to now + ttl) whatever its order.
    state.spendUntil = now + this.options.ttlMs / 2;
    state.localUntil = now + this.options.ttlMs / 4;
    state.lastUsed = now;
    if (!this.newer(state, figures.seq)) return;
    state.amount = figures.amount;
    state.free = figures.free;
  }

  /**
   * Redis is healthy: admits `amount` from this instance's lease without asking Redis (local
   * admission, issue 31) if the lease's unspent part covers it. The settlement debits the lease.
   * Only in the first quarter of the lease's time to live since Redis last refreshed it, so a
   * request admitted here has at least three quarters of it to settle before the lease could
   * expire; never while a call that may shrink the lease is in flight or went unanswered.
   */
  admitLocally(userId: string, amount: number, now: number): boolean {
    const state = this.states.get(userId);
    if (!state || state.seq === 0 || now >= state.localUntil) return false;
    return this.spend(userId, amount, now);
  }

  /** Is a report of call `seq` newer than what the state holds? (Records it if so.) */
  private newer(state: LeaseState, seq: number | undefined): boolean {
    if (seq === undefined) return true;
    if (seq <= state.seq) return false;
    state.seq = seq;
    return true;
  }

  /** Redis did not answer: an admission that may have taken from the lease makes it uncertain. */
  unanswered(userId: string, request: LeaseRequest | undefined, mayHaveReached: boolean): void {
    if (!request?.mayConvert) return;
    const state = this.state(userId);
    state.shrinking--;
    if (mayHaveReached) state.uncertain = true;
  }

  /** Redis is away: admits `amount` from this instance's lease if it has that much left. */
  spend(userId: string, amount: number, now: number): boolean {
    const state = this.states.get(userId);
    if (!state || state.uncertain || state.shrinking > 0 || now >= state.spendUntil) return false;
    if (state.spent + amount > state.amount) return false;
    state.spent += amount;
    state.lastUsed = now;
    return true;
  }

  /** A request admitted from the lease is over: its hold is replaced by its charge until Redis debits it. */
  settled(userId: string, hold: number, charge: number): void {
    const state = this.state(userId);
    state.spent = Math.max(0, state.spent - hold) + charge;
  }

  /** Redis took `charge` out of the lease (the settlement, or the repair after the fault); `after` is the lease now. */
  debited(userId: string, charge: number, after: number, seq?: number): void {
    const state = this.state(userId);
    state.spent = Math.max(0, state.spent - charge);
    if (after < 0) return;
    if (this.newer(state, seq)) state.amount = after;
    // A newer report was handled first: it may or may not show this debit; counting it again
    // errs low (the next report corrects it), never high.
    else state.amount = Math.max(0, state.amount - charge);
  }

  /** Leases nothing was spent from lately: given back to the balance (one call each, off the request path). */
  idle(now: number): string[] {
    const users: string[] = [];
    for (const [userId, state] of this.states) {
      if (state.spent > 0 || state.shrinking > 0 || state.uncertain) continue;
      if (state.amount === 0) this.states.delete(userId);
      else if (now - state.lastUsed >= this.idleMs) users.push(userId);
    }
    return users;
  }

  /** Every lease with nothing spent from it (given back at shutdown). */
  unused(): string[] {
    return [...this.states].filter(([, state]) => state.amount > 0 && state.spent === 0).map(([userId]) => userId);
  }

  /** Giving back (or shrinking) is in flight: nothing spent locally meanwhile. */
  shrinkStarted(userId: string): void {
    this.state(userId).shrinking++;
  }

  shrinkEnded(userId: string, after: number | null, seq?: number): void {
    const state = this.state(userId);
    state.shrinking--;
    if (after === null) return;
    if (this.newer(state, seq)) state.amount = after;
    else state.amount = Math.min(state.amount, after);
  }

  /** Redis lost its data: no lease is there any more (the next admissions set aside at least what was spent). */
  lost(): void {
    for (const state of this.states.values()) state.amount = 0;
  }

  /** The lease and what was spent of it (tests, metrics). */
  of(userId: string): { amount: number; spent: number } | undefined {
    const state = this.states.get(userId);
    return state && { amount: state.amount, spent: state.spent };
  }

  private state(userId: string): LeaseState {
    let state = this.states.get(userId);
    if (!state) {
      state = {
        amount: 0,
        spent: 0,
        spendUntil: 0,
        lastUsed: 0,
        shrinking: 0,
        uncertain: false,
        free: null,
        seq: 0,
        localUntil: 0,
      };
      this.states.set(userId, state);
    }
    return state;
  }
}

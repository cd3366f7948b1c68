import type { KeyLimits, RateCheck } from './rate-limit-window.js';
import type { LedgerMove } from '../credits/credit-ledger.js';
import type { SettlementRecord } from './settlement-record.js';

/** A pre-request hold: the most the request can cost, counted until the request settles. */
export interface Hold {
  id: string;
  userId: string;
  keyId: string | null;
  /** nano-USD. */
  amount: number;
  /** A hold left behind by a dead instance stops counting after this time. */
  expiresAt: number;
  /** Count the hold against the user's balance (billing.require_credits). */
  trackUser: boolean;
  /** Count it against the key's monthly quota / credit limit. */
  trackKey: boolean;
}

/** Everything one request is checked against, decided in one atomic step. */
export interface AdmissionCheck {
  keyId: string;
  /** The key's owner: the key's counters and rate windows live beside the user's (one Redis slot). */
  userId: string;
  /** Rate windows to charge (rpm 1, tpm the prompt estimate); null when the key has none. */
  rate: { limits: KeyLimits; tokens: number } | null;
  /** The hold to take; null when neither the balance nor a key quota is tracked. */
  hold: Hold | null;
  /** nano-USD; null = no such limit. */
  monthlyQuota: number | null;
  lifetimeLimit: number | null;
  now: number;
  /** Redis only: this instance's outage lease on the user, kept topped up by the same step. */
  lease?: LeaseRequest;
  /** Redis only: window units this instance admitted locally and has not sent yet (counted, not written). */
  unsent?: { rpm: number; tpm: number };
}

/** What an admission asks of the instance's outage lease (see outage-leases.ts). */
export interface LeaseRequest {
  id: string;
  /** What the instance already spent of its lease: the lease never goes below it. */
  floor: number;
  /** The lease is topped up to 1/share of the free balance when below half of that; 0: never. */
  share: number;
  expiresAt: number;
  /** The hold may take from this lease when the free balance is short. */
  mayConvert: boolean;
}

export type HoldOutcome = 'held' | 'insufficient_credits' | 'quota_exceeded' | 'credit_limit_exceeded';

export interface AdmissionDecision {
  /** The rate check (null when the key has no rate limits); a refusal here takes nothing. */
  rate: RateCheck | null;
  /** null when no hold was asked for or the rate check refused first. */
  hold: HoldOutcome | null;
  /** The hold was taken from this instance's outage lease (Redis did not answer). */
  fromLease?: boolean;
  /** Redis only, when a lease was asked about: the lease after this step and the balance left free. */
  lease?: { amount: number; free: number };
  /** Refused for credit, but the instance's own lease could cover it (ask again with mayConvert). */
  leaseCouldCover?: boolean;
  /** Redis only: the call's order number (RedisHotCounters' leaseSeq) and the windows' stored tat after it (-1: none). */
  seq?: number;
  windows?: { rpmTat: number; tpmTat: number };
  /**
   * Admitted locally from this instance's lease while Redis is healthy (issue 31): the window
   * units to write with the settlement (the hold is in the lease; fromLease is set too).
   */
  localWindow?: LocalWindowSettlement;
}

/** The window units of a local admission, written to Redis by its settlement. */
export interface LocalWindowSettlement {
  keyId: string;
  rpm: number;
  rpmLimit: number | null;
  tpm: number;
  at: number;
}

/** What a finished request changes in the hot counters, and its durable record for the store. */
export interface Settlement {
  hold: Hold | null;
  userId: string | null;
  keyId: string | null;
  /** nano-USD taken from the user's balance (0: not charged). */
  charge: number;
  /** nano-USD added to the key's spend (the request's cost). */
  keySpend: number;
  /** YYYY-MM (UTC) the key spend counts in: the request's start. */
  month: string;
  /** Correction of the tpm window by actual − reserved tokens. */
  tokens: { limits: KeyLimits; delta: number } | null;
  record: SettlementRecord;
  now: number;
  /** Admitted from the outage lease: the charge leaves this lease (the hold was never in Redis). */
  leaseDebit?: { id: string; amount: number };
  /** Admitted locally (Redis healthy): the window units this settlement writes. */
  localWindow?: LocalWindowSettlement;
  /**
   * Admitted locally from the lease with Redis healthy: no admission ever carried this hold to
   * Redis, so its settlement has no hold there to look up and release (one command fewer).
   */
  holdNotInRedis?: boolean;
  /** Redis only: called with the settlement call's order number as it is handed to Redis. */
  onSent?: (seq: number) => void;
}

/** Counters of one user or key, as the ledger says and as the hot counters say. */
export interface CounterDrift {
  entity: string;
  /** What the ledger (plus settlements not yet written) says. */
  expected: number;
  /** What the hot counter held (null: it was not loaded). */
  actual: number | null;
}

/**
 * Balance, key spend, open holds and rate windows of the request path: admission and settlement
 * are one atomic step each, with no database query once an account's counters are loaded (from
 * the ledger, on first use). Two implementations: this process's memory (one instance) and Redis
 * (any number of instances; each step one Lua script, one round trip).
 */
export interface HotCounters {
  readonly name: string;
  admit(check: AdmissionCheck): Promise<AdmissionDecision>;
  /** Turns the hold into the actual charge at once and queues the durable record. */
  settle(settlement: Settlement): Promise<void>;
  /** Balance (settled charges included) and open holds, loading the counter if needed. */
  balance(userId: string, now: number): Promise<{ balance: number; held: number }>;
  /**
   * Called around every ledger write made outside settlement (grants, purchases, refunds):
   * `before` marks the users as being written (no counter loads from a half-written store),
   * `after` applies what was committed.
   */
  ledgerWrite(userIds: string[]): Promise<LedgerWriteTicket>;
  /** Rebuilds the counters of every loaded user and key from the store, reporting drift. */
  reconcile(now: number): Promise<CounterDrift[]>;
  close(): Promise<void>;
}

export interface LedgerWriteTicket {
  /** The committed entries (none when the write failed or changed nothing). */
  done(moves: LedgerMove[]): Promise<void>;
}

/** Pure: the admission rule both implementations apply (the Lua script mirrors it). */
export function decideHold(
  amount: number,
  user: { balance: number; held: number } | null,
  key: { monthSpend: number; totalSpend: number; held: number } | null,
  monthlyQuota: number | null,
  lifetimeLimit: number | null,
): HoldOutcome {
  if (key && monthlyQuota !== null && monthlyQuota - key.monthSpend - key.held <= 0) return 'quota_exceeded';
  if (key && lifetimeLimit !== null && lifetimeLimit - key.totalSpend - key.held <= 0) return 'credit_limit_exceeded';
  if (user && user.balance - user.held < amount) return 'insufficient_credits';
  return 'held';
}

import type { KeyLimits, RateCheck } from './rate-limit-window.js';
import type { LocalWindowSettlement } from './hot-counters.js';

const PERIOD_MS = 60_000;

/** A unit charge of a local admission whose settlement was sent to Redis as call `seq` (0: not sent yet). */
interface Pending {
  cost: number;
  seq: number;
  /** When it was admitted: one never settled (its request's metering failed) stops counting after the hold TTL. */
  at: number;
}

/** One window of one key, as this instance knows it. */
interface WindowView {
  /** The stored theoretical arrival time Redis last reported (0: empty window). */
  tat: number;
  /** The order number of the Redis call that reported it (RedisHotCounters.leaseSeq). */
  seq: number;
  /** Charges of requests admitted here locally that the reported tat may not include yet. */
  pending: Pending[];
}

/** What a local admission charged to a key's windows: its settlement writes it to Redis. */
export type LocalWindowCharge = LocalWindowSettlement;

/**
 * The rpm / tpm windows of the keys this instance admits locally (issue 31): the windows stay in
 * Redis, and a request admitted without asking Redis has its window units written there by its
 * settlement. This instance decides from the last figures Redis reported (every admission and
 * settlement reply carries them) plus the units it admitted and Redis has not written yet, the
 * same GCRA as the script. It admits locally only while at least half the window is left after
 * the request; nearer the limit it asks Redis (which is then exact for one instance: the units
 * still unsent are counted in the script's decision).
 */
export class LocalWindows {
  private readonly views = new Map<string, { rpm?: WindowView; tpm?: WindowView }>();

  /** @param ttlMs limits.hold_ttl_ms: a unit whose settlement never came stops counting after it, as a hold would. */
  constructor(private readonly ttlMs: number) {}

  /** Units admitted locally whose settlement has not been sent: counted by a round-trip admission. */
  unsent(keyId: string, now: number): { rpm: number; tpm: number } {
    const view = this.views.get(keyId);
    this.expire(view?.rpm, now);
    this.expire(view?.tpm, now);
    return { rpm: sumUnsent(view?.rpm), tpm: sumUnsent(view?.tpm) };
  }

  private expire(view: WindowView | undefined, now: number): void {
    if (view && view.pending.length > 0 && now - view.pending[0]!.at > this.ttlMs)
      view.pending = view.pending.filter((pending) => now - pending.at <= this.ttlMs);
  }

  /** A Redis reply reported the windows' stored tat (-1: not reported) as of call `seq`. */
  reported(keyId: string, seq: number, rpmTat: number, tpmTat: number): void {
    if (rpmTat < 0 && tpmTat < 0) return;
    const view = this.views.get(keyId) ?? {};
    if (rpmTat >= 0) view.rpm = newer(view.rpm, seq, rpmTat);
    if (tpmTat >= 0) view.tpm = newer(view.tpm, seq, tpmTat);
    this.views.set(keyId, view);
  }

  /**
   * Decides locally: null when Redis must decide (a window never reported, or less than half of
   * it left after this request). Else the check (always allowed) and the charge to settle.
   */
  admit(
    keyId: string,
    limits: KeyLimits,
    tokens: number,
    now: number,
  ): { check: RateCheck; charge: LocalWindowCharge } | null {
    const view = this.views.get(keyId);
    this.expire(view?.rpm, now);
    this.expire(view?.tpm, now);
    const rpm = limits.rpmLimit ? decide(view?.rpm, limits.rpmLimit, 1, now) : null;
    if (limits.rpmLimit && !rpm) return null;
    const tpm = limits.tpmLimit ? decide(view?.tpm, limits.tpmLimit, tokens, now) : null;
    if (limits.tpmLimit && !tpm) return null;
    const charge: LocalWindowCharge = {
      keyId,
      rpm: rpm ? 1 : 0,
      rpmLimit: limits.rpmLimit,
      tpm: tpm ? tokens : 0,
      at: now,
    };
    if (rpm) view!.rpm!.pending.push({ cost: 1, seq: 0, at: now });
    if (tpm) view!.tpm!.pending.push({ cost: tokens, seq: 0, at: now });
    return {
      check: {
        allowed: true,
        refusedBy: null,
        retryAfterMs: 0,
        requests: rpm && limits.rpmLimit ? { limit: limits.rpmLimit, ...rpm } : null,
        tokens: tpm && limits.tpmLimit ? { limit: limits.tpmLimit, ...tpm } : null,
      },
      charge,
    };
  }

  /** The settlement carrying a local charge was handed to Redis as call `seq`. */
  sent(charge: LocalWindowCharge, seq: number): void {
    const view = this.views.get(charge.keyId);
    if (charge.rpm) markSent(view?.rpm, charge.rpm, seq);
    if (charge.tpm) markSent(view?.tpm, charge.tpm, seq);
  }

  /** That settlement got no answer: Redis may or may not have written it; forget the key's windows (Redis decides again). */
  unanswered(charge: LocalWindowCharge): void {
    this.views.delete(charge.keyId);
  }
}

function newer(view: WindowView | undefined, seq: number, tat: number): WindowView {
  if (!view) return { tat, seq, pending: [] };
  if (seq > view.seq) {
    view.tat = tat;
    view.seq = seq;
    // Sent before this call: Redis ran them first, the tat includes them.
    view.pending = view.pending.filter((pending) => pending.seq === 0 || pending.seq > seq);
  }
  return view;
}

function sumUnsent(view: WindowView | undefined): number {
  let total = 0;
  for (const pending of view?.pending ?? []) if (pending.seq === 0) total += pending.cost;
  return total;
}

function markSent(view: WindowView | undefined, cost: number, seq: number): void {
  const pending = view?.pending.find((candidate) => candidate.seq === 0 && candidate.cost === cost);
  if (!pending || !view) return;
  if (seq <= view.seq) view.pending.splice(view.pending.indexOf(pending), 1);
  else pending.seq = seq;
}

/** The GCRA step of the script, with a margin: allowed only if half the window is left after it. */
function decide(
  view: WindowView | undefined,
  limit: number,
  cost: number,
  now: number,
): { remaining: number; resetMs: number } | null {
  if (!view) return null;
  const interval = PERIOD_MS / limit;
  let pending = 0;
  for (const entry of view.pending) pending += entry.cost;
  const next = Math.max(view.tat, now) + (pending + cost) * interval;
  if (next - now > PERIOD_MS / 2) return null;
  return {
    remaining: Math.max(0, Math.floor((PERIOD_MS - (next - now)) / interval)),
    resetMs: Math.ceil(next - now),
  };
}

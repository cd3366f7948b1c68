import { adjustTat, decideRate, type KeyLimits, type RateCheck } from './rate-limit-window.js';
import { decideHold, type Hold, type HoldLimits, type HoldOutcome, type LimitBackend } from './limit-backend.js';

interface OpenHold {
  amount: number;
  expiresAt: number;
}

/** Limits and holds in this process: right for one instance (the default, no Redis). */
export class MemoryLimitBackend implements LimitBackend {
  readonly name = 'memory';
  private readonly requestTats = new Map<string, number>();
  private readonly tokenTats = new Map<string, number>();
  private readonly userHolds = new Map<string, Map<string, OpenHold>>();
  private readonly keyHolds = new Map<string, Map<string, OpenHold>>();

  async checkRate(keyId: string, limits: KeyLimits, tokens: number, now: number): Promise<RateCheck> {
    const result = decideRate(
      this.requestTats.get(keyId) ?? null,
      this.tokenTats.get(keyId) ?? null,
      now,
      tokens,
      limits,
    );
    if (result.rpmTat !== null) this.requestTats.set(keyId, result.rpmTat);
    if (result.tpmTat !== null) this.tokenTats.set(keyId, result.tpmTat);
    this.sweepBuckets(now);
    return result.check;
  }

  async adjustTokens(keyId: string, limits: KeyLimits, deltaTokens: number, now: number): Promise<void> {
    if (!limits.tpmLimit || deltaTokens === 0) return;
    this.tokenTats.set(keyId, adjustTat(this.tokenTats.get(keyId) ?? null, now, deltaTokens, limits.tpmLimit));
  }

  async reserve(hold: Hold, limits: HoldLimits, now: number): Promise<HoldOutcome> {
    const userHeld = hold.trackUser ? sumOpen(this.userHolds.get(hold.userId), now) : 0;
    const keyHeld = hold.trackKey && hold.keyId ? sumOpen(this.keyHolds.get(hold.keyId), now) : 0;
    const outcome = decideHold(hold.amount, limits, userHeld, keyHeld);
    if (outcome !== 'held') return outcome;
    const entry = { amount: hold.amount, expiresAt: hold.expiresAt };
    if (hold.trackUser) holdsOf(this.userHolds, hold.userId).set(hold.id, entry);
    if (hold.trackKey && hold.keyId) holdsOf(this.keyHolds, hold.keyId).set(hold.id, entry);
    return 'held';
  }

  async release(hold: Hold): Promise<void> {
    removeHold(this.userHolds, hold.userId, hold.id);
    if (hold.keyId) removeHold(this.keyHolds, hold.keyId, hold.id);
  }

  async heldForUser(userId: string, now: number): Promise<number> {
    return sumOpen(this.userHolds.get(userId), now);
  }

  async close(): Promise<void> {}

  /** Buckets that are full again carry no information: drop them so memory stays bounded. */
  private sweepBuckets(now: number): void {
    if (this.requestTats.size + this.tokenTats.size < 10_000) return;
    for (const map of [this.requestTats, this.tokenTats]) for (const [key, tat] of map) if (tat <= now) map.delete(key);
  }
}

function holdsOf(map: Map<string, Map<string, OpenHold>>, owner: string): Map<string, OpenHold> {
  let holds = map.get(owner);
  if (!holds) map.set(owner, (holds = new Map()));
  return holds;
}

function removeHold(map: Map<string, Map<string, OpenHold>>, owner: string, id: string): void {
  const holds = map.get(owner);
  if (!holds) return;
  holds.delete(id);
  if (holds.size === 0) map.delete(owner);
}

function sumOpen(holds: Map<string, OpenHold> | undefined, now: number): number {
  let total = 0;
  if (!holds) return total;
  for (const [id, hold] of holds) {
    if (hold.expiresAt <= now) holds.delete(id);
    else total += hold.amount;
  }
  return total;
}

import { GatewayError } from '../shared/errors.js';
import type { Hold } from './hot-counters.js';

export interface UnansweredHoldsOptions {
  intervalMs?: number;
  /** Bounds memory during a long outage; holds beyond it expire by themselves (limits.hold_ttl_ms). */
  max?: number;
}

/**
 * Holds whose admission was sent to Redis and got no answer (timed out, connection lost while
 * Redis was paused): Redis may still run that admission when it wakes up and take the hold, with
 * no request left to settle it (the request went on with a hold in the store, or was refused).
 * Each is released in the background until that has worked twice, a second apart (the admission
 * may reach Redis just after the first release did), or until it expires by itself.
 */
export class UnansweredHolds {
  private readonly holds = new Map<string, { hold: Hold; released: number }>();
  private readonly intervalMs: number;
  private readonly max: number;
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;

  constructor(
    private readonly release: (hold: Hold) => Promise<void>,
    private readonly clock: { now(): number },
    options: UnansweredHoldsOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 1_000;
    this.max = options.max ?? 10_000;
  }

  /** Holds still waiting to be released (tests). */
  get size(): number {
    return this.holds.size;
  }

  add(hold: Hold): void {
    if (this.holds.size >= this.max) return;
    this.holds.set(hold.id, { hold, released: 0 });
    if (!this.timer) {
      this.timer = setInterval(() => void this.sweep(), this.intervalMs);
      this.timer.unref();
    }
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One pass; stops at the first failure (Redis still down: the next pass tries again). */
  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const now = this.clock.now();
      for (const [id, entry] of this.holds) {
        if (entry.hold.expiresAt <= now) {
          this.holds.delete(id);
          continue;
        }
        try {
          await this.release(entry.hold);
        } catch {
          break;
        }
        if (++entry.released >= 2) this.holds.delete(id);
      }
    } finally {
      this.sweeping = false;
    }
    if (this.holds.size === 0) this.close();
  }
}

/**
 * Whether a failed Redis command may still run there: one refused before it was written (not
 * connected, nothing queued) never reached Redis; a timeout or a lost connection may have.
 */
export function mayHaveReachedRedis(error: unknown): boolean {
  if (error instanceof GatewayError) return false;
  const message = (error as Error | undefined)?.message ?? '';
  return !message.includes("Stream isn't writeable");
}

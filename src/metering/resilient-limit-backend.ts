import type { Logger } from 'pino';
import { ERROR_CODES } from '../shared/error-codes.js';
import { GatewayError } from '../shared/errors.js';
import type { KeyLimits, RateCheck } from './rate-limit-window.js';
import type { Hold, HoldLimits, HoldOutcome, LimitBackend } from './limit-backend.js';
import { MemoryLimitBackend } from './memory-limit-backend.js';

export type RedisFailureMode = 'open' | 'closed';

const SWEEP_INTERVAL_MS = 1_000;
/** Bounds memory during a long outage; holds beyond it expire by themselves (limits.hold_ttl_ms). */
const MAX_UNANSWERED_HOLDS = 10_000;

export class LimitsUnavailableError extends GatewayError {
  constructor(cause: unknown) {
    super(
      ERROR_CODES.limits_unavailable.status,
      ERROR_CODES.limits_unavailable.type,
      'limits_unavailable',
      'Rate limits and credit holds cannot be checked right now; try again shortly.',
      { headers: { 'retry-after': '1' }, cause },
    );
  }
}

/**
 * Wraps the Redis backend with the documented behaviour when Redis fails:
 * - `open`: the request is checked against this instance's memory instead (limits then hold per
 *   instance, holds still cover the balance this instance sees) and a warning is logged;
 * - `closed`: the request is refused with 503 `limits_unavailable`.
 * Releases and token corrections that fail are logged; holds expire by themselves.
 */
export class ResilientLimitBackend implements LimitBackend {
  readonly name: string;
  private readonly fallback = new MemoryLimitBackend();
  private readonly fallbackHolds = new Set<string>();
  /**
   * Holds whose reservation failed without an answer (timed out, connection lost): Redis may
   * still take them when it wakes up, with nobody left to release them. They are released in
   * the background until that has worked twice, a second apart, or until they expire.
   */
  private readonly unanswered = new Map<string, { hold: Hold; released: number }>();
  private sweeper: NodeJS.Timeout | undefined;
  private lastWarning = 0;

  constructor(
    private readonly primary: LimitBackend,
    private readonly mode: RedisFailureMode,
    private readonly logger: Logger,
    private readonly clock: { now(): number },
  ) {
    this.name = `${primary.name} (fail-${mode})`;
  }

  async checkRate(keyId: string, limits: KeyLimits, tokens: number, now: number): Promise<RateCheck> {
    try {
      return await this.primary.checkRate(keyId, limits, tokens, now);
    } catch (error) {
      this.onFailure(error, 'rate limit check');
      return this.fallback.checkRate(keyId, limits, tokens, now);
    }
  }

  async adjustTokens(keyId: string, limits: KeyLimits, deltaTokens: number, now: number): Promise<void> {
    try {
      await this.primary.adjustTokens(keyId, limits, deltaTokens, now);
    } catch (error) {
      this.warn(error, 'token limit correction');
    }
  }

  async reserve(hold: Hold, limits: HoldLimits, now: number): Promise<HoldOutcome> {
    try {
      return await this.primary.reserve(hold, limits, now);
    } catch (error) {
      if (mayHaveReachedRedis(error)) this.releaseLater(hold);
      this.onFailure(error, 'credit hold');
      const outcome = await this.fallback.reserve(hold, limits, now);
      if (outcome === 'held') this.fallbackHolds.add(hold.id);
      return outcome;
    }
  }

  async release(hold: Hold): Promise<void> {
    if (this.fallbackHolds.delete(hold.id)) return this.fallback.release(hold);
    try {
      await this.primary.release(hold);
    } catch (error) {
      this.warn(error, 'hold release (it expires by itself)');
    }
  }

  async heldForUser(userId: string, now: number): Promise<number> {
    const local = await this.fallback.heldForUser(userId, now);
    try {
      return local + (await this.primary.heldForUser(userId, now));
    } catch (error) {
      this.warn(error, 'reading holds');
      return local;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    await this.primary.close();
  }

  /** Holds still waiting to be released after a reservation that got no answer (tests). */
  get unansweredHolds(): number {
    return this.unanswered.size;
  }

  private releaseLater(hold: Hold): void {
    if (this.unanswered.size >= MAX_UNANSWERED_HOLDS) return;
    this.unanswered.set(hold.id, { hold, released: 0 });
    this.sweeper ??= setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  private async sweep(): Promise<void> {
    const now = this.clock.now();
    for (const [id, entry] of this.unanswered) {
      if (entry.hold.expiresAt <= now) {
        this.unanswered.delete(id);
        continue;
      }
      try {
        await this.primary.release(entry.hold);
        // Twice: the reservation may reach Redis just after the first release did.
        if (++entry.released >= 2) this.unanswered.delete(id);
      } catch {
        // Still down: next sweep.
      }
    }
    if (this.unanswered.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  private onFailure(error: unknown, what: string): void {
    this.warn(error, what);
    if (this.mode === 'closed') throw new LimitsUnavailableError(error);
  }

  /** At most one warning every 10 s: an outage must not flood the log at thousands of requests a second. */
  private warn(error: unknown, what: string): void {
    const now = this.clock.now();
    if (now - this.lastWarning < 10_000) return;
    this.lastWarning = now;
    this.logger.warn(
      { err: error, mode: this.mode },
      `Redis failed during ${what}; limits are ${this.mode === 'open' ? 'enforced per instance from memory (fail-open)' : 'refusing requests with 503 (fail-closed)'}`,
    );
  }
}

/** A command refused before it was written (not connected, nothing queued) never reached Redis. */
function mayHaveReachedRedis(error: unknown): boolean {
  if (error instanceof GatewayError) return false;
  const message = (error as Error)?.message ?? '';
  return !message.includes("Stream isn't writeable");
}

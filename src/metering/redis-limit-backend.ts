import type { Redis } from 'ioredis';
import type { KeyLimits, RateCheck } from './rate-limit-window.js';
import type { Hold, HoldLimits, HoldOutcome, LimitBackend } from './limit-backend.js';
import {
  ADJUST_TOKENS_SCRIPT,
  CHECK_RATE_SCRIPT,
  RESERVE_HOLD_SCRIPT,
  SUM_HOLDS_SCRIPT,
} from './redis-limit-scripts.js';

interface ScriptedRedis extends Redis {
  gatewayCheckRate(rpmKey: string, tpmKey: string, ...args: (string | number)[]): Promise<number[]>;
  gatewayAdjustTokens(tpmKey: string, ...args: (string | number)[]): Promise<number>;
  gatewayReserveHold(userKey: string, keyKey: string, ...args: (string | number)[]): Promise<number>;
  gatewaySumHolds(userKey: string, now: number): Promise<number>;
}

const HOLD_OUTCOMES: HoldOutcome[] = ['held', 'insufficient_credits', 'quota_exceeded', 'credit_limit_exceeded'];

/**
 * Limits and holds in Redis, so N instances enforce one limit. Each decision is one atomic Lua
 * script. Commands fail fast (no offline queue, one retry) so an outage surfaces as an error
 * the caller handles by its fail-open or fail-closed setting, instead of requests hanging.
 */
export class RedisLimitBackend implements LimitBackend {
  readonly name = 'redis';
  private readonly redis: ScriptedRedis;

  constructor(
    base: Redis,
    private readonly prefix = 'gateway:',
    options: { commandTimeoutMs?: number } = {},
  ) {
    // The command timeout is the installation's (redis.command_timeout_ms) unless given here.
    const redis = base.duplicate({
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      ...(options.commandTimeoutMs !== undefined ? { commandTimeout: options.commandTimeoutMs } : {}),
      // Keep trying to reconnect in the background, at most every 2 s.
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    // Errors are reported per command to the caller; this only keeps ioredis from crashing the process.
    redis.on('error', () => undefined);
    redis.defineCommand('gatewayCheckRate', { numberOfKeys: 2, lua: CHECK_RATE_SCRIPT });
    redis.defineCommand('gatewayAdjustTokens', { numberOfKeys: 1, lua: ADJUST_TOKENS_SCRIPT });
    redis.defineCommand('gatewayReserveHold', { numberOfKeys: 2, lua: RESERVE_HOLD_SCRIPT });
    redis.defineCommand('gatewaySumHolds', { numberOfKeys: 1, lua: SUM_HOLDS_SCRIPT });
    this.redis = redis as ScriptedRedis;
  }

  /** Resolves when connected (start-up waits a little so the first requests do not fail open). */
  async ready(timeoutMs = 2000): Promise<boolean> {
    if (this.redis.status === 'ready') return true;
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.redis.once('ready', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  async checkRate(keyId: string, limits: KeyLimits, tokens: number, now: number): Promise<RateCheck> {
    const reply = await this.redis.gatewayCheckRate(
      this.bucket('rpm', keyId),
      this.bucket('tpm', keyId),
      now,
      Math.max(0, Math.ceil(tokens)),
      limits.rpmLimit ?? 0,
      limits.tpmLimit ?? 0,
    );
    const [allowed, refused, retryAfterMs, rpmRemaining, rpmResetMs, tpmRemaining, tpmResetMs] = reply.map(Number);
    return {
      allowed: allowed === 1,
      refusedBy: refused === 1 ? 'requests' : refused === 2 ? 'tokens' : null,
      retryAfterMs,
      requests: limits.rpmLimit ? { limit: limits.rpmLimit, remaining: rpmRemaining, resetMs: rpmResetMs } : null,
      tokens: limits.tpmLimit ? { limit: limits.tpmLimit, remaining: tpmRemaining, resetMs: tpmResetMs } : null,
    };
  }

  async adjustTokens(keyId: string, limits: KeyLimits, deltaTokens: number, now: number): Promise<void> {
    if (!limits.tpmLimit || deltaTokens === 0) return;
    await this.redis.gatewayAdjustTokens(this.bucket('tpm', keyId), now, deltaTokens, limits.tpmLimit);
  }

  async reserve(hold: Hold, limits: HoldLimits, now: number): Promise<HoldOutcome> {
    const optional = (value: number | null) => (value === null ? '' : String(value));
    const code = await this.redis.gatewayReserveHold(
      this.holdsKey('user', hold.userId),
      this.holdsKey('key', hold.keyId ?? '-'),
      hold.id,
      hold.amount,
      now,
      hold.expiresAt,
      optional(limits.userBalance),
      optional(limits.keyMonthRemaining),
      optional(limits.keyLifetimeRemaining),
      hold.trackUser ? '1' : '0',
      hold.trackKey && hold.keyId ? '1' : '0',
    );
    return HOLD_OUTCOMES[Number(code)] ?? 'insufficient_credits';
  }

  async release(hold: Hold): Promise<void> {
    const pipeline = this.redis.multi();
    if (hold.trackUser) pipeline.hdel(this.holdsKey('user', hold.userId), hold.id);
    if (hold.trackKey && hold.keyId) pipeline.hdel(this.holdsKey('key', hold.keyId), hold.id);
    await pipeline.exec();
  }

  async heldForUser(userId: string, now: number): Promise<number> {
    return Number(await this.redis.gatewaySumHolds(this.holdsKey('user', userId), now));
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private bucket(kind: 'rpm' | 'tpm', keyId: string): string {
    return `${this.prefix}limit:${kind}:${keyId}`;
  }

  private holdsKey(kind: 'user' | 'key', id: string): string {
    return `${this.prefix}holds:${kind}:${id}`;
  }
}

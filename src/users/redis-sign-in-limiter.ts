import { deriveRedis, type RedisClient } from '../store/redis-client.js';
import type { Logger } from 'pino';
import type { SignInLimitSettings } from './auth-settings.js';
import { MemorySignInLimiter, type SignInAdmission, type SignInLimiter } from './sign-in-limiter.js';

/**
 * KEYS: account, address. ARGV: now, window, account threshold, address threshold, base, max.
 * The same rule as `holdRemainingMs`, checked for both keys and counted for both, atomically.
 */
const BEGIN_SCRIPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local base = tonumber(ARGV[5])
local max = tonumber(ARGV[6])
local function load(key)
  local values = redis.call('HMGET', key, 'f', 'l')
  local failures = tonumber(values[1]) or 0
  local last = tonumber(values[2]) or 0
  if now - last > window then failures = 0 end
  return failures, last
end
local function remaining(failures, last, threshold)
  if failures < threshold then return 0 end
  local exponent = math.min(failures - threshold, 30)
  local hold = math.min(max, base * (2 ^ exponent))
  local left = last + hold - now
  if left > 0 then return left end
  return 0
end
local accountFailures, accountLast = load(KEYS[1])
local addressFailures, addressLast = load(KEYS[2])
local wait = math.max(remaining(accountFailures, accountLast, tonumber(ARGV[3])),
  remaining(addressFailures, addressLast, tonumber(ARGV[4])))
if wait > 0 then return math.ceil(wait) end
redis.call('HSET', KEYS[1], 'f', accountFailures + 1, 'l', now)
redis.call('PEXPIRE', KEYS[1], window)
redis.call('HSET', KEYS[2], 'f', addressFailures + 1, 'l', now)
redis.call('PEXPIRE', KEYS[2], window)
return 0
`;

/** KEYS: account, address. */
const SUCCEEDED_SCRIPT = `
redis.call('DEL', KEYS[1])
local failures = tonumber(redis.call('HGET', KEYS[2], 'f') or '0')
if failures > 0 then redis.call('HSET', KEYS[2], 'f', failures - 1) end
return 0
`;

interface SignInScripts {
  gatewaySignInBegin(accountKey: string, addressKey: string, ...args: number[]): Promise<number>;
  gatewaySignInSucceeded(accountKey: string, addressKey: string): Promise<number>;
}
type ScriptedRedis = RedisClient & SignInScripts;

/**
 * Sign-in limits shared by every instance through Redis (REDIS_URL), so a second instance is no
 * second set of guesses. When Redis does not answer within a second, this instance's own limiter
 * decides (fail-open to per-instance limits, never to no limits).
 */
export class RedisSignInLimiter implements SignInLimiter {
  private readonly redis: ScriptedRedis;
  private readonly fallback: MemorySignInLimiter;
  private lastWarning = 0;

  constructor(
    base: RedisClient,
    private readonly settings: SignInLimitSettings,
    private readonly now: () => number,
    private readonly prefix: string,
    private readonly logger: Logger,
    /** What is limited, in key names and log lines: `sign-in`, or `password-reset` (the same rule). */
    private readonly scope = 'sign-in',
  ) {
    const redis = deriveRedis(base, {
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 1000,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    redis.on('error', () => undefined);
    redis.defineCommand('gatewaySignInBegin', { numberOfKeys: 2, lua: BEGIN_SCRIPT });
    redis.defineCommand('gatewaySignInSucceeded', { numberOfKeys: 2, lua: SUCCEEDED_SCRIPT });
    this.redis = redis as ScriptedRedis;
    this.fallback = new MemorySignInLimiter(settings, now);
  }

  async begin(account: string, address: string): Promise<SignInAdmission> {
    const { settings } = this;
    try {
      const wait = await this.redis.gatewaySignInBegin(
        this.key('account', account),
        this.key('address', address),
        this.now(),
        settings.windowMs,
        settings.accountFailures,
        settings.addressFailures,
        settings.baseLockoutMs,
        settings.maxLockoutMs,
      );
      return wait > 0 ? { allowed: false, retryAfterMs: Number(wait) } : { allowed: true };
    } catch (error) {
      this.warn(error);
      return this.fallback.begin(account, address);
    }
  }

  async succeeded(account: string, address: string): Promise<void> {
    await this.fallback.succeeded(account, address);
    try {
      await this.redis.gatewaySignInSucceeded(this.key('account', account), this.key('address', address));
    } catch (error) {
      this.warn(error);
    }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private key(kind: 'account' | 'address', value: string): string {
    // Hash-tagged by scope: on a Redis Cluster both keys of one script call are in one slot.
    return `${this.prefix}{${this.scope}}:${kind}:${value}`;
  }

  private warn(error: unknown): void {
    const now = this.now();
    if (now - this.lastWarning < 60_000) return;
    this.lastWarning = now;
    this.logger.warn({ err: error }, `${this.scope} limits: Redis did not answer, limiting per instance meanwhile`);
  }
}

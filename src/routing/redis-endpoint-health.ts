import { Redis } from 'ioredis';
import type { Clock } from '../shared/clock.js';
import type { Admission, BreakerSettings, EndpointHealth } from './circuit-breaker.js';

/*
 * The same transitions as circuit-breaker.ts, run atomically inside Redis so every gateway
 * instance sees one breaker per endpoint. The time comes from our clock (ARGV), not Redis
 * TIME, so instances agree with their own logs and tests can move it.
 * Hash fields: f = failures in a row, o = open until (ms), p = probe in flight until (ms).
 */
const ADMIT = `
local o = tonumber(redis.call('HGET', KEYS[1], 'o') or '0')
if o == 0 then return {1, 0, 0} end
local now = tonumber(ARGV[1])
if now < o then return {0, 0, o} end
local p = tonumber(redis.call('HGET', KEYS[1], 'p') or '0')
if now < p then return {0, 0, p} end
redis.call('HSET', KEYS[1], 'p', now + tonumber(ARGV[2]))
return {1, 1, 0}
`;

const FAILURE = `
local now = tonumber(ARGV[1])
local cooldown = tonumber(ARGV[2])
local threshold = tonumber(ARGV[3])
local o = tonumber(redis.call('HGET', KEYS[1], 'o') or '0')
if o ~= 0 then
  redis.call('HSET', KEYS[1], 'f', 0, 'o', now + cooldown, 'p', 0)
else
  local f = redis.call('HINCRBY', KEYS[1], 'f', 1)
  if f >= threshold then redis.call('HSET', KEYS[1], 'f', 0, 'o', now + cooldown, 'p', 0) end
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
return 1
`;

export interface RedisEndpointHealthOptions {
  /** Namespaces the keys (tests use a random one per test). */
  keyPrefix?: string;
}

export class RedisEndpointHealth implements EndpointHealth {
  private readonly redis: Redis;
  private readonly prefix: string;
  /** A breaker left alone this long forgets its failures (also bounds Redis memory). */
  private readonly ttlMs: number;

  constructor(
    redisUrl: string,
    private readonly settings: BreakerSettings,
    private readonly clock: Clock,
    options: RedisEndpointHealthOptions = {},
  ) {
    // Routing must not wait on a dead Redis forever: fail fast, and the caller treats the endpoint as healthy.
    this.redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false, connectTimeout: 2000 });
    this.redis.on('error', () => undefined);
    this.prefix = `${options.keyPrefix ?? 'gateway:'}breaker:`;
    this.ttlMs = Math.max(settings.cooldownMs * 10, 10 * 60_000);
  }

  async admit(key: string): Promise<Admission> {
    const [admitted, probe, retryAt] = (await this.redis.eval(ADMIT, 1, this.prefix + key, this.clock.now(), this.settings.cooldownMs)) as [number, number, number];
    return { admitted: admitted === 1, probe: probe === 1, retryAtMs: admitted === 1 ? null : retryAt };
  }

  async recordSuccess(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }

  async recordFailure(key: string): Promise<void> {
    await this.redis.eval(FAILURE, 1, this.prefix + key, this.clock.now(), this.settings.cooldownMs, this.settings.failureThreshold, this.ttlMs);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

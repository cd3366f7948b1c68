import { deriveRedis, type RedisClient } from '../store/redis-client.js';
import type { Clock } from '../shared/clock.js';
import {
  CLOSED,
  type Admission,
  type BreakerSettings,
  type BreakerState,
  type EndpointHealth,
} from './circuit-breaker.js';

/*
 * The same transitions as circuit-breaker.ts, run atomically inside Redis so every gateway
 * instance sees one breaker per endpoint. The time comes from our clock (ARGV), not Redis
 * TIME, so instances agree with their own logs and tests can move it.
 * Hash fields: f = failures in a row, o = open until (ms), p = probe in flight until (ms).
 */
const ADMIT = `
local o = tonumber(redis.call('HGET', KEYS[1], 'o') or '0')
if o == 0 then return {1, 0, 0, tonumber(redis.call('HGET', KEYS[1], 'f') or '0')} end
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
redis.call('PUBLISH', ARGV[5], ARGV[6])
return 1
`;

export interface RedisEndpointHealthOptions {
  /** Namespaces the keys (tests use a random one per test). */
  keyPrefix?: string;
  /** How long a closed breaker seen in Redis is trusted without asking again (ms). */
  closedSnapshotMs?: number;
}

/** What this instance last saw of a closed breaker in Redis. */
interface ClosedSnapshot {
  /** Trusted until this time (our clock); after it, the next admission asks Redis again. */
  freshUntil: number;
  /** Failures in a row Redis held at that time; a success must reset them there. */
  failures: number;
}

/*
 * Why a local snapshot: nearly every request meets a closed breaker and succeeds, and asking
 * Redis for that twice per attempt (admit, then reset on success) was the largest cost of the
 * PostgreSQL + Redis gateway with metering off. So a closed breaker with no failures is admitted
 * from memory and its successes cost nothing. Every failure, on any instance, is published on
 * one channel; every instance drops its snapshot of that endpoint, so its next admission asks
 * Redis (and sees the breaker opened by another instance) and its next success resets the count.
 * The snapshot also expires after `closedSnapshotMs`, and is not used while the subscription is
 * down, so a lost message delays what another instance saw by at most that long. Open and
 * half-open breakers always go to Redis: the single probe must stay atomic across instances.
 */
export class RedisEndpointHealth implements EndpointHealth {
  private readonly redis: RedisClient;
  private readonly subscriber: RedisClient;
  private readonly prefix: string;
  private readonly channel: string;
  /** A breaker left alone this long forgets its failures (also bounds Redis memory). */
  private readonly ttlMs: number;
  private readonly closedSnapshotMs: number;
  private readonly snapshots = new Map<string, ClosedSnapshot>();
  private subscribed = false;

  constructor(
    redis: RedisClient,
    private readonly settings: BreakerSettings,
    private readonly clock: Clock,
    options: RedisEndpointHealthOptions = {},
  ) {
    // Routing must not wait on Redis: the installation's client times commands out quickly and
    // queues nothing while disconnected, and the caller treats an unreadable breaker as closed.
    const connection = { lazyConnect: false };
    this.redis = deriveRedis(redis, connection);
    this.redis.on('error', () => undefined);
    // Hash-tagged: on a Redis Cluster every breaker is in one slot (inspect() reads them in one pipeline).
    this.prefix = `${options.keyPrefix ?? 'gateway:'}{breaker}:`;
    this.channel = `${this.prefix}failures`;
    this.ttlMs = Math.max(settings.cooldownMs * 10, 10 * 60_000);
    this.closedSnapshotMs = options.closedSnapshotMs ?? 1000;
    this.subscriber = deriveRedis(redis, connection);
    this.subscriber.on('error', () => undefined);
    // Messages may have been missed while disconnected: forget everything and trust nothing until subscribed again.
    this.subscriber.on('close', () => {
      this.subscribed = false;
      this.snapshots.clear();
    });
    this.subscriber.on('ready', () => this.subscribe());
    this.subscriber.on('message', (_channel: string, key: string) => this.snapshots.delete(key));
  }

  /**
   * Resolves once the command connection is up. Nothing waits for this on the request path (a
   * command sent before it fails at once and the breaker reads as closed); tests and start-up
   * checks use it to begin from a connected breaker.
   */
  async ready(): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve) => this.redis.once('ready', () => resolve()));
  }

  async admit(key: string): Promise<Admission> {
    const now = this.clock.now();
    const snapshot = this.snapshots.get(key);
    if (snapshot && snapshot.failures === 0 && this.subscribed && now < snapshot.freshUntil)
      return { admitted: true, probe: false, retryAtMs: null };
    const [admitted, probe, retryAt, failures] = (await this.redis.eval(
      ADMIT,
      1,
      this.prefix + key,
      now,
      this.settings.cooldownMs,
    )) as [number, number, number, number?];
    if (admitted === 1 && probe === 0)
      this.snapshots.set(key, { freshUntil: now + this.closedSnapshotMs, failures: Number(failures ?? 0) });
    else this.snapshots.delete(key);
    return { admitted: admitted === 1, probe: probe === 1, retryAtMs: admitted === 1 ? null : retryAt };
  }

  async recordSuccess(key: string): Promise<void> {
    const snapshot = this.snapshots.get(key);
    // Closed with no failures when last seen, and no failure announced since: nothing to reset.
    if (snapshot && snapshot.failures === 0 && this.subscribed && this.clock.now() < snapshot.freshUntil) return;
    this.snapshots.delete(key);
    await this.redis.del(this.prefix + key);
  }

  async recordFailure(key: string): Promise<void> {
    this.snapshots.delete(key);
    await this.redis.eval(
      FAILURE,
      1,
      this.prefix + key,
      this.clock.now(),
      this.settings.cooldownMs,
      this.settings.failureThreshold,
      this.ttlMs,
      this.channel,
      key,
    );
  }

  async inspect(keys: string[]): Promise<BreakerState[]> {
    if (keys.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const key of keys) pipeline.hmget(this.prefix + key, 'f', 'o', 'p');
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([error, fields]) => {
      if (error || !Array.isArray(fields)) return CLOSED;
      const [failures, openUntil, probeUntil] = (fields as Array<string | null>).map((value) => Number(value ?? 0));
      return { failures, openUntil, probeUntil };
    });
  }

  async close(): Promise<void> {
    this.subscriber.removeAllListeners('close');
    await Promise.all([
      this.redis.quit().catch(() => this.redis.disconnect()),
      this.subscriber.quit().catch(() => this.subscriber.disconnect()),
    ]);
  }

  private subscribe(): void {
    this.subscriber.subscribe(this.channel).then(
      () => {
        this.subscribed = true;
      },
      () => undefined,
    );
  }
}

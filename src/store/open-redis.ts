import { Redis } from 'ioredis';

/**
 * The installation's Redis (REDIS_URL), opened once by the composition root and passed to the
 * features that share state across instances (breakers, limits, key invalidation). This client
 * carries the address and connects only if used; each feature derives the connections it needs
 * with `duplicate()`, because a subscriber needs a connection of its own and each feature chooses
 * how it behaves while Redis is down. A feature closes what it derived; the opener closes this.
 */
export function openRedis(url: string): Redis {
  const redis = new Redis(url, { lazyConnect: true });
  // Errors are handled where commands are sent; this only keeps ioredis from crashing the process.
  redis.on('error', () => undefined);
  return redis;
}

/** The default prefix of every Redis key and channel of one installation. */
export const DEFAULT_REDIS_KEY_PREFIX = 'gateway:';

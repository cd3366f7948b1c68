import { deriveRedis, type RedisClient } from '../store/redis-client.js';
import type { Logger } from 'pino';
import type { ApiKeyCache } from './api-key-cache.js';

/**
 * Tells every gateway instance that a key changed (revoked, disabled, re-routed), so each drops
 * its cached copy. The store's key_changes feed, polled by every cache, is the guarantee; with
 * Redis, a pub/sub message makes it near-instant. The message is the key's hash, never the key.
 */
export interface KeyChangeAnnouncer {
  /** Call after the change is committed to the store. */
  announce(keyHash: string): Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_KEY_CHANGE_CHANNEL = 'gateway:key-changes';

/** Without Redis: this instance drops its copy at once; the others see the change when they poll. */
export function localAnnouncer(cache: ApiKeyCache): KeyChangeAnnouncer {
  return {
    async announce(keyHash) {
      cache.invalidate(keyHash);
    },
    async close() {},
  };
}

export interface RedisAnnouncerOptions {
  redis: RedisClient;
  channel?: string;
  cache: ApiKeyCache;
  logger: Logger;
}

/**
 * With Redis: publishes each change and invalidates on every message received. When Redis is
 * unreachable nothing fails: announcements are logged and dropped, and the polled change feed
 * still reaches every instance within its interval.
 */
export async function startRedisAnnouncer(options: RedisAnnouncerOptions): Promise<KeyChangeAnnouncer> {
  const { cache, logger } = options;
  const channel = options.channel ?? DEFAULT_KEY_CHANGE_CHANNEL;
  const connection = { maxRetriesPerRequest: 2, connectTimeout: 2_000, lazyConnect: false };
  // No offline queue for publishing: while Redis is down a publish fails at once instead of
  // holding the API call that revoked the key.
  const publisher = deriveRedis(options.redis, { ...connection, enableOfflineQueue: false });
  const subscriber = deriveRedis(options.redis, connection);
  for (const client of [publisher, subscriber]) {
    // ioredis reconnects by itself; without a listener an outage would crash the process.
    client.on('error', (error: Error) =>
      logger.warn(
        { err: { message: error.message } },
        'Redis for API key invalidation is unavailable; falling back to store polling',
      ),
    );
  }
  subscriber.on('message', (_channel: string, keyHash: string) => cache.invalidate(keyHash));

  const subscribe = async (): Promise<boolean> => {
    try {
      await subscriber.subscribe(channel);
      return true;
    } catch (error) {
      logger.warn(
        { err: { message: (error as Error).message } },
        'could not subscribe to API key changes in Redis; retrying when it is back',
      );
      return false;
    }
  };
  // The clients queue nothing while connecting, so subscribing waits for the first connection.
  // Once subscribed, ioredis re-subscribes after reconnects; a first failure is retried on the next 'ready'.
  await Promise.all([firstConnection(subscriber, 2_000), firstConnection(publisher, 2_000)]);
  if (!(await subscribe())) subscriber.once('ready', () => void subscribe());

  return {
    async announce(keyHash) {
      cache.invalidate(keyHash);
      try {
        await publisher.publish(channel, keyHash);
      } catch (error) {
        logger.warn(
          { err: { message: (error as Error).message } },
          'could not publish an API key change to Redis; other instances will see it by polling',
        );
      }
    },
    async close() {
      subscriber.disconnect();
      publisher.disconnect();
    },
  };
}

/** Resolves when the client is ready, has failed once, or after `timeoutMs`, whichever is first. */
function firstConnection(client: RedisClient, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off('ready', done);
      client.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    client.once('ready', done);
    client.once('error', done);
  });
}

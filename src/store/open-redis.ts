import { Redis, type RedisOptions } from 'ioredis';
import { DEFAULT_REDIS_SETTINGS, type RedisSettings } from '../config/gateway-config.js';

const COMMAND_TIMED_OUT = 'Command timed out';

/**
 * A Redis client that never makes a request wait on a Redis in trouble:
 * - every command has a short timeout, and nothing is queued while disconnected (a command
 *   fails at once), so each feature's fail-open or fail-closed choice applies within milliseconds;
 * - a command that times out on a connection that looked healthy (a paused or overloaded Redis)
 *   drops that connection and reconnects: until Redis answers again the client is not ready, so
 *   later commands fail at once instead of each waiting out its own timeout;
 * - commands that were in flight are never sent again on the new connection (a credit hold whose
 *   reply was lost must not be taken twice).
 * `duplicate()` keeps all of this for the connections features derive from it.
 */
export class GatewayRedis extends Redis {
  override sendCommand(...args: Parameters<Redis['sendCommand']>): unknown {
    const [command] = args;
    const wasReady = this.status === 'ready';
    const result = super.sendCommand(...args);
    if (wasReady && typeof this.options.commandTimeout === 'number') {
      command.promise.catch((error: unknown) => {
        if ((error as Error)?.message === COMMAND_TIMED_OUT && this.status === 'ready') this.disconnect(true);
      });
    }
    return result;
  }

  override duplicate(override?: Partial<RedisOptions>): GatewayRedis {
    return new GatewayRedis({ ...this.options, ...override });
  }
}

/**
 * The installation's Redis (REDIS_URL), opened once by the composition root and passed to the
 * features that share state across instances (breakers, limits, key invalidation). This client
 * carries the address and connects only if used; each feature derives the connections it needs
 * with `duplicate()`, because a subscriber needs a connection of its own and each feature chooses
 * how it behaves while Redis is down. A feature closes what it derived; the opener closes this.
 */
export function openRedis(url: string, timeouts: RedisSettings = DEFAULT_REDIS_SETTINGS): Redis {
  const redis = new GatewayRedis(url, {
    lazyConnect: true,
    commandTimeout: timeouts.commandTimeoutMs,
    connectTimeout: timeouts.connectTimeoutMs,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 1,
    // Reconnect in the background, at most every 2 s.
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
  // Errors are handled where commands are sent; this only keeps ioredis from crashing the process.
  redis.on('error', () => undefined);
  return redis;
}

/** The default prefix of every Redis key and channel of one installation. */
export const DEFAULT_REDIS_KEY_PREFIX = 'gateway:';

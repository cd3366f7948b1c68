import type { Redis, RedisOptions } from 'ioredis';
import { ioredis } from './ioredis-module.js';
import { DEFAULT_REDIS_SETTINGS, type RedisSettings } from '../config/gateway-config.js';

const COMMAND_TIMED_OUT = 'Command timed out';
/** A timer that fires this much later than asked means the event loop was blocked meanwhile. */
const LAG_TOLERANCE_MS = 50;
/** How many times a command's time is given again because the loop was blocked (bounds the wait). */
const MAX_LAG_EXTENSIONS = 3;
/** Timeouts in a row, with no reply between them, after which the connection is dropped. */
const TIMEOUTS_BEFORE_RECONNECT = 2;

/** ioredis's options, and GatewayRedis's own. */
export interface GatewayRedisOptions extends RedisOptions {
  /**
   * Commands sent while earlier ones await their replies leave together, in one write(2) at the
   * end of the turn: the socket is corked at such a command and uncorked once the turn's I/O
   * callbacks have run (setImmediate). On loopback each write costs the sender the kernel's
   * whole TCP path (issue 31: 20 % of the gateway's busy time under load was the Redis commands'
   * writes); a busy connection, which always has replies to wait for or has just read some,
   * sends many requests' commands together. A command sent on an idle connection (nothing in
   * flight, no reply read this turn) is written at once, as Nagle's rule does: held to the turn's
   * end it waited for whatever the rest of the turn did (issue 31: 50–90 µs of one request at a
   * time, a settlement waiting for its own answer to be serialised). Replies read this turn count
   * as busy: the commands their callers send next would otherwise find the queue just emptied,
   * and the first of them would leave alone (a write more per turn).
   */
  batchWrites?: boolean;
}

/** What GatewayRedis needs of ioredis's Command (its own timer field is filled so ioredis sets none). */
interface TimedCommand {
  isResolved: boolean;
  promise: Promise<unknown>;
  reject(error: Error): void;
  _commandTimeoutTimer?: NodeJS.Timeout;
}

/**
 * A Redis client that never makes a request wait on a Redis in trouble, and does not mistake a
 * slow event loop for one:
 * - every command has a short timeout, and nothing is queued while disconnected (a command
 *   fails at once), so each feature's fail-open or fail-closed choice applies within milliseconds;
 * - the timeout counts only time the event loop was free: a timer that fired late (the loop was
 *   busy, e.g. parsing a 9 MB body) first lets the loop read the replies that arrived meanwhile
 *   (they are read after timers run), and if the command is still unanswered gives it its time
 *   again (at most three times). Before issue 25 such a timeout sent the request down the fallback
 *   path although Redis had answered;
 * - a connection is dropped and reconnected only after two timeouts in a row with no reply in
 *   between (a paused or overloaded Redis): until Redis answers again the client is not ready, so
 *   later commands fail at once instead of each waiting out its own timeout. One slow command
 *   does not drop the connection for every other request;
 * - commands that were in flight are never sent again on the new connection (a credit hold whose
 *   reply was lost must not be taken twice).
 * `duplicate()` keeps all of this for the connections features derive from it.
 *
 * Defined over the Redis class it is given (a factory: ioredis is required when a Redis is opened).
 */
function defineGatewayRedis(Base: typeof Redis) {
  return class GatewayRedis extends Base {
    private timeoutsInARow = 0;
    /** The socket corked for this turn (batchWrites), uncorked at its end. */
    private corked: Redis['stream'] | null = null;
    /** The socket whose replies are watched (batchWrites): a new one after a reconnect. */
    private watched: Redis['stream'] | null = null;
    /** Replies were read in this turn of the event loop (batchWrites). */
    private readThisTurn = false;

    override sendCommand(...args: Parameters<Redis['sendCommand']>): unknown {
      const command = args[0] as unknown as TimedCommand;
      const timeoutMs = this.options.commandTimeout;
      if (typeof timeoutMs === 'number' && !command._commandTimeoutTimer) this.armTimeout(command, timeoutMs);
      // Only a command written to the socket itself (not a pipeline's, which writes once anyway),
      // and only on a busy connection.
      if ((this.options as GatewayRedisOptions).batchWrites && this.status === 'ready' && args[1] === undefined) {
        if (this.busy()) this.corkForTurn();
      }
      const result = super.sendCommand(...args);
      command.promise.then(
        () => (this.timeoutsInARow = 0),
        () => undefined,
      );
      return result;
    }

    /** Commands in flight, a corked write this turn, or replies read this turn. */
    private busy(): boolean {
      const stream = this.stream;
      if (this.watched !== stream) {
        this.watched = stream;
        // Added after ioredis's own listener: replies are parsed (and their callers' continuations
        // queued) before this runs, and those continuations run after it.
        stream.on('data', () => this.repliesRead());
      }
      return this.corked === stream || this.readThisTurn || this.commandQueue.length > 0;
    }

    private repliesRead(): void {
      if (this.readThisTurn) return;
      this.readThisTurn = true;
      setImmediate(() => (this.readThisTurn = false));
    }

    /** Writes what was corked for this turn now (its sender is already at the turn's end). */
    writeNow(): void {
      const stream = this.corked;
      if (!stream) return;
      this.corked = null;
      stream.uncork();
    }

    private corkForTurn(): void {
      const stream = this.stream;
      if (this.corked === stream || stream.writableCorked > 0) return;
      stream.cork();
      this.corked = stream;
      setImmediate(() => {
        if (this.corked === stream) this.corked = null;
        stream.uncork();
      });
    }

    /** ioredis's own command timer, except that time the event loop was blocked does not count. */
    private armTimeout(command: TimedCommand, timeoutMs: number): void {
      let extensions = 0;
      const arm = () => {
        const due = performance.now() + timeoutMs;
        command._commandTimeoutTimer = setTimeout(() => {
          const late = performance.now() - due;
          // Replies that arrived while the loop was blocked are read in the poll phase, after timers.
          setImmediate(() => {
            if (command.isResolved) return;
            if (late > LAG_TOLERANCE_MS && extensions < MAX_LAG_EXTENSIONS) {
              extensions++;
              arm();
              return;
            }
            command.reject(new Error(COMMAND_TIMED_OUT));
            this.timedOut();
          });
        }, timeoutMs);
      };
      arm();
    }

    private timedOut(): void {
      if (++this.timeoutsInARow < TIMEOUTS_BEFORE_RECONNECT || this.status !== 'ready') return;
      this.timeoutsInARow = 0;
      this.disconnect(true);
    }

    override duplicate(override?: Partial<GatewayRedisOptions>): GatewayRedis {
      return new GatewayRedis({ ...this.options, ...override });
    }
  };
}

type GatewayRedisClass = ReturnType<typeof defineGatewayRedis>;
let gatewayRedis: GatewayRedisClass | undefined;

/** The class, defined on first use: a gateway without REDIS_URL never loads ioredis (~2 MB of heap). */
function gatewayRedisClass(): GatewayRedisClass {
  return (gatewayRedis ??= defineGatewayRedis(ioredis().Redis));
}

/**
 * Writes a connection's commands held for the turn's end (batchWrites) now: for a caller that
 * gathered its own commands until the turn's end (redis-script-batch.ts), which would otherwise
 * wait for the next turn's. Anything else (a cluster, a connection without batchWrites): nothing.
 */
export function writeBatchedNow(client: unknown): void {
  // No class yet: no GatewayRedis was ever opened, so the client is none.
  if (gatewayRedis && client instanceof gatewayRedis) client.writeNow();
}

/**
 * The installation's Redis (REDIS_URL), opened once by the composition root and passed to the
 * features that share state across instances (breakers, limits, key invalidation). This client
 * carries the address and connects only if used; each feature derives the connections it needs
 * with `duplicate()`, because a subscriber needs a connection of its own and each feature chooses
 * how it behaves while Redis is down. A feature closes what it derived; the opener closes this.
 */
export function openRedis(url: string, timeouts: RedisSettings = DEFAULT_REDIS_SETTINGS): Redis {
  const GatewayRedis = gatewayRedisClass();
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

import { afterEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { openRedis } from './open-redis.js';
import { deriveRedis } from './redis-client.js';
import { randomId } from '../shared/ids.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Counts the socket's writes: one per write(2) the connection asks for. */
function countWrites(redis: Redis): { writes: number } {
  const counts = { writes: 0 };
  const stream = redis.stream as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
  for (const method of ['_write', '_writev'] as const) {
    const original = stream[method].bind(stream);
    stream[method] = (...args: unknown[]) => {
      counts.writes++;
      return original(...args);
    };
  }
  return counts;
}

async function connected(batchWrites: boolean): Promise<Redis> {
  const redis = deriveRedis(openRedis(REDIS_URL), { lazyConnect: false, batchWrites }) as Redis;
  await new Promise((resolve) => redis.once('ready', resolve));
  // What ioredis sends on connecting (client info) is answered before writes are counted.
  await redis.ping();
  return redis;
}

describe('batchWrites: the commands of one event-loop turn leave in one write', () => {
  const open: Redis[] = [];
  afterEach(() => {
    for (const redis of open.splice(0)) redis.disconnect();
  });

  it('sends a turn’s commands, from separate callbacks, in one write, each getting its own reply', async () => {
    const redis = await connected(true);
    open.push(redis);
    const key = `test:${randomId(10)}:batch`;
    const counts = countWrites(redis);
    // Three callbacks of one turn, each sending two commands. Immediates queued together run in
    // one check phase whatever the machine's load (three timers may expire a millisecond apart
    // and run in two turns), and the uncork the first command queues runs after them.
    const replies = await new Promise<unknown[]>((resolve) => {
      const all: Array<Promise<unknown>> = [];
      for (let index = 0; index < 3; index++)
        setImmediate(() => {
          all.push(redis.incr(key), redis.get(key));
          if (all.length === 6) void Promise.all(all).then(resolve);
        });
    });
    expect(replies).toEqual([1, '1', 2, '2', 3, '3']);
    expect(counts.writes).toBe(1);
    await redis.del(key);
  });

  it('without it, each command is a write of its own', async () => {
    const redis = await connected(false);
    open.push(redis);
    const counts = countWrites(redis);
    await Promise.all([redis.ping(), redis.ping(), redis.ping()]);
    expect(counts.writes).toBe(3);
  });

  it('keeps working across a reconnect', async () => {
    const redis = await connected(true);
    open.push(redis);
    redis.disconnect(true);
    await new Promise((resolve) => redis.once('ready', resolve));
    expect(await Promise.all([redis.ping(), redis.echo('after')])).toEqual(['PONG', 'after']);
  });
});

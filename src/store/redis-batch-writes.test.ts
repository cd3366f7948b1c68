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

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

async function connected(batchWrites: boolean): Promise<Redis> {
  const redis = deriveRedis(openRedis(REDIS_URL), { lazyConnect: false, batchWrites }) as Redis;
  await new Promise((resolve) => redis.once('ready', resolve));
  // What ioredis sends on connecting (client info) is answered before writes are counted.
  await redis.ping();
  return redis;
}

describe('batchWrites: commands sent behind others in flight leave together, in one write', () => {
  const open: Redis[] = [];
  afterEach(() => {
    for (const redis of open.splice(0)) redis.disconnect();
  });

  it('sends a turn’s commands, from separate callbacks, in one write behind the first, each getting its own reply', async () => {
    const redis = await connected(true);
    open.push(redis);
    const key = `test:${randomId(10)}:batch`;
    const counts = countWrites(redis);
    // Three callbacks of one turn, each sending two commands. Immediates queued together run in
    // one check phase whatever the machine's load (three timers may expire a millisecond apart
    // and run in two turns), and the uncork the second command queues runs after them.
    const replies = await new Promise<unknown[]>((resolve) => {
      const all: Array<Promise<unknown>> = [];
      for (let index = 0; index < 3; index++)
        setImmediate(() => {
          all.push(redis.incr(key), redis.get(key));
          if (all.length === 6) void Promise.all(all).then(resolve);
        });
    });
    expect(replies).toEqual([1, '1', 2, '2', 3, '3']);
    // The first found nothing in flight and left at once; the five behind it, together.
    expect(counts.writes).toBe(2);
    await redis.del(key);
  });

  it('writes a command at once when nothing is in flight, and holds the ones behind it to the turn’s end', async () => {
    const redis = await connected(true);
    open.push(redis);
    const counts = countWrites(redis);
    // A turn after the last reply: the connection is idle.
    await nextTurn();
    const first = redis.ping();
    // Written before the turn goes on: it does not wait for whatever else the turn does.
    expect(counts.writes).toBe(1);
    const behind = [redis.echo('a'), redis.echo('b')];
    expect(counts.writes).toBe(1);
    expect(await Promise.all([first, ...behind])).toEqual(['PONG', 'a', 'b']);
    expect(counts.writes).toBe(2);
    // Idle again: the next one leaves at once too.
    await nextTurn();
    const next = redis.ping();
    expect(counts.writes).toBe(3);
    expect(await next).toBe('PONG');
  });

  it('holds the commands sent on a reply (the queue just emptied) to the turn’s end, together', async () => {
    const redis = await connected(true);
    open.push(redis);
    const counts = countWrites(redis);
    const replies = await redis.ping().then(() => {
      // Sent by the reply's caller: nothing is in flight, but the connection is busy this turn.
      const next = [redis.echo('a'), redis.echo('b')];
      expect(counts.writes).toBe(1);
      return Promise.all(next);
    });
    expect(replies).toEqual(['a', 'b']);
    expect(counts.writes).toBe(2);
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

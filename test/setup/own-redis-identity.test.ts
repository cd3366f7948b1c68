import { afterEach, describe, expect, it, vi } from 'vitest';
import { startOwnRedis, type OwnRedis } from '../helpers/own-redis.js';

// The first port handed out is one another test's redis-server already holds (the race between
// freePort() and the server's bind); the ones after it are really free.
const handedOut: number[] = [];
vi.mock('../helpers/free-port.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../helpers/free-port.js')>();
  return {
    freePort: async () => {
      const port = handedOut.length === 0 && takenPort !== undefined ? takenPort : await real.freePort();
      handedOut.push(port);
      return port;
    },
  };
});
let takenPort: number | undefined;

describe('a test’s own Redis is its own', () => {
  const started: OwnRedis[] = [];
  afterEach(async () => {
    for (const redis of started.splice(0)) await redis.stop();
    handedOut.length = 0;
    takenPort = undefined;
  });

  it('moves to another port when its port was taken by another redis-server meanwhile', async () => {
    const other = await startOwnRedis();
    started.push(other);
    await other.inspect().set('owner', 'other test');
    takenPort = other.port;
    handedOut.length = 0;

    const mine = await startOwnRedis();
    started.push(mine);
    expect(handedOut[0]).toBe(other.port);
    expect(mine.port).not.toBe(other.port);
    expect(await mine.inspect().get('owner')).toBeNull();
    // The other test's server was left alone.
    expect(await other.inspect().get('owner')).toBe('other test');
  });
});

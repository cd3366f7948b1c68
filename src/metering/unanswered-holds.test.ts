import { describe, expect, it } from 'vitest';
import type { Hold } from './hot-counters.js';
import { mayHaveReachedRedis, UnansweredHolds } from './unanswered-holds.js';
import { LimitsUnavailableError } from './limits-unavailable.js';

const hold = (id: string, expiresAt = 10_000): Hold => ({
  id,
  userId: 'user_1',
  keyId: 'key_1',
  amount: 100,
  expiresAt,
  trackUser: true,
  trackKey: false,
});

describe('UnansweredHolds', () => {
  it('retries while Redis fails, then releases each hold twice and forgets it', async () => {
    let down = true;
    const released: string[] = [];
    const holds = new UnansweredHolds(
      async (entry) => {
        if (down) throw new Error('Command timed out');
        released.push(entry.id);
      },
      { now: () => 1_000 },
      { intervalMs: 60_000 },
    );
    holds.add(hold('a'));
    holds.add(hold('b'));
    await holds.sweep();
    expect(released).toEqual([]);
    expect(holds.size).toBe(2);
    down = false;
    await holds.sweep();
    expect(released).toEqual(['a', 'b']);
    expect(holds.size).toBe(2);
    await holds.sweep();
    expect(released).toEqual(['a', 'b', 'a', 'b']);
    expect(holds.size).toBe(0);
    holds.close();
  });

  it('drops expired holds without a release, and keeps at most `max`', async () => {
    const released: string[] = [];
    const holds = new UnansweredHolds(
      async (entry) => void released.push(entry.id),
      { now: () => 5_000 },
      { intervalMs: 60_000, max: 2 },
    );
    holds.add(hold('old', 4_000));
    holds.add(hold('new', 9_000));
    holds.add(hold('over'));
    expect(holds.size).toBe(2);
    await holds.sweep();
    expect(released).toEqual(['new']);
    holds.close();
  });

  it('runs by itself once a hold is added', async () => {
    const released: string[] = [];
    const holds = new UnansweredHolds(
      async (entry) => void released.push(entry.id),
      { now: () => 0 },
      { intervalMs: 5 },
    );
    holds.add(hold('a'));
    const deadline = Date.now() + 2_000;
    while (holds.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(released).toEqual(['a', 'a']);
    expect(holds.size).toBe(0);
  });
});

describe('mayHaveReachedRedis', () => {
  it('a command refused before it was written did not; a timeout may have', () => {
    expect(mayHaveReachedRedis(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe(
      false,
    );
    expect(mayHaveReachedRedis(new LimitsUnavailableError(null))).toBe(false);
    expect(mayHaveReachedRedis(new Error('Command timed out'))).toBe(true);
    expect(mayHaveReachedRedis(new Error('Connection is closed.'))).toBe(true);
  });
});

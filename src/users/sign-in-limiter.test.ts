import { describe, expect, it } from 'vitest';
import { addressKey, holdRemainingMs, MemorySignInLimiter } from './sign-in-limiter.js';

const settings = { accountFailures: 3, addressFailures: 5, baseLockoutMs: 1000, maxLockoutMs: 8000, windowMs: 60_000 };

describe('holdRemainingMs', () => {
  it.each([
    [2, 0, 0],
    [3, 0, 1000],
    [4, 0, 2000],
    [5, 500, 3500],
    [9, 0, 8000],
    [60, 0, 8000],
  ])('%i failures, %i ms after the last → %i ms', (failures, elapsed, expected) => {
    expect(holdRemainingMs({ failures, lastAt: 10_000 }, 3, 10_000 + elapsed, settings)).toBe(expected);
  });

  it('forgets failures after the window', () => {
    expect(holdRemainingMs({ failures: 50, lastAt: 0 }, 3, 60_001, settings)).toBe(0);
  });
});

describe('addressKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2::55', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
  ])('%s → %s', (ip, key) => {
    expect(addressKey(ip)).toBe(key);
  });
});

describe('MemorySignInLimiter', () => {
  it('counts an attempt when it starts and takes it back when it succeeds', async () => {
    let now = 1_000_000;
    const limiter = new MemorySignInLimiter(settings, () => now);
    for (let attempt = 0; attempt < 3; attempt++) expect(await limiter.begin('a', 'ip')).toEqual({ allowed: true });
    expect(await limiter.begin('a', 'ip')).toEqual({ allowed: false, retryAfterMs: 1000 });
    // Refused attempts are not counted: the hold does not grow while it is waited out.
    expect(await limiter.begin('a', 'ip')).toEqual({ allowed: false, retryAfterMs: 1000 });
    now += 1000;
    expect(await limiter.begin('a', 'ip')).toEqual({ allowed: true });
    await limiter.succeeded('a', 'ip');
    expect(await limiter.begin('a', 'ip')).toEqual({ allowed: true });
    // The address kept its three failures (one success taken back): one more and it is held.
    expect(await limiter.begin('b', 'ip')).toEqual({ allowed: true });
    expect(await limiter.begin('c', 'ip')).toEqual({ allowed: false, retryAfterMs: 1000 });
    expect(await limiter.begin('c', 'other-ip')).toEqual({ allowed: true });
  });
});

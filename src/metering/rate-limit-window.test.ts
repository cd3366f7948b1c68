import { describe, expect, it } from 'vitest';
import { adjustTat, decideLimit, decideRate } from './rate-limit-window.js';

describe('decideLimit (token bucket)', () => {
  it('admits a full minute of requests at once, then one more per refill interval', () => {
    let tat: number | null = null;
    const now = 1_000_000;
    for (let index = 0; index < 6; index++) {
      const decision = decideLimit(tat, now, 1, 6);
      expect(decision.allowed).toBe(true);
      expect(decision.remaining).toBe(5 - index);
      tat = decision.nextTat;
    }
    const refused = decideLimit(tat, now, 1, 6);
    expect(refused).toMatchObject({ allowed: false, retryAfterMs: 10_000, remaining: 0, resetMs: 60_000 });
    expect(decideLimit(tat, now + 9_999, 1, 6).allowed).toBe(false);
    expect(decideLimit(tat, now + 10_000, 1, 6).allowed).toBe(true);
    expect(decideLimit(tat, now + 60_000, 1, 6).remaining).toBe(5);
  });

  it('refuses a cost larger than what is left and tells when it would fit', () => {
    const first = decideLimit(null, 0, 800, 1000);
    expect(first).toMatchObject({ allowed: true, remaining: 200 });
    const second = decideLimit(first.nextTat, 0, 300, 1000);
    expect(second.allowed).toBe(false);
    expect(second.retryAfterMs).toBeCloseTo(6_000, 6);
  });

  it('moves the bucket by the difference between used and reserved tokens', () => {
    expect(adjustTat(null, 1000, 500, 1000)).toBe(31_000);
    expect(adjustTat(50_000, 1000, -500, 1000)).toBe(20_000);
  });
});

describe('decideRate', () => {
  it('charges neither limit when one refuses', () => {
    const full = decideLimit(null, 0, 100, 100).nextTat;
    const result = decideRate(null, full, 0, 10, { rpmLimit: 5, tpmLimit: 100 });
    expect(result.check).toMatchObject({ allowed: false, refusedBy: 'tokens' });
    expect(result.rpmTat).toBeNull();
    expect(result.check.requests?.remaining).toBe(4);
  });

  it('allows everything when the key has no limits', () => {
    expect(decideRate(null, null, 0, 1e9, { rpmLimit: null, tpmLimit: null }).check).toMatchObject({
      allowed: true,
      requests: null,
      tokens: null,
    });
  });
});

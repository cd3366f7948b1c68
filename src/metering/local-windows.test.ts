import { describe, expect, it } from 'vitest';
import { LocalWindows } from './local-windows.js';

describe('local windows: rate windows decided without Redis far from their limit (issue 31)', () => {
  const now = 10_000_000;
  const limits = { rpmLimit: 10, tpmLimit: null };

  it('needs a report first, then admits while half the window is left, counting its own unsent units', () => {
    const windows = new LocalWindows(900_000);
    expect(windows.admit('key', limits, 0, now)).toBeNull();
    // Redis reported one unit taken (tat = now + 6 s at 10 a minute).
    windows.reported('key', 1, now + 6_000, -1);
    const admitted = [];
    for (let index = 0; index < 6; index++) admitted.push(windows.admit('key', limits, 0, now));
    // 2nd..5th units fit within half the window; the 6th would leave less than half.
    expect(admitted.map((entry) => entry !== null)).toEqual([true, true, true, true, false, false]);
    expect(admitted[0]!.check.requests).toEqual({ limit: 10, remaining: 8, resetMs: 12_000 });
    expect(admitted[3]!.check.requests).toEqual({ limit: 10, remaining: 5, resetMs: 30_000 });
    // Round trips count the four units not sent yet.
    expect(windows.unsent('key', now)).toEqual({ rpm: 4, tpm: 0 });
  });

  it('a unit leaves the count once a report of a later call shows it', () => {
    const windows = new LocalWindows(900_000);
    windows.reported('key', 1, now + 6_000, -1);
    const { charge } = windows.admit('key', limits, 0, now)!;
    windows.sent(charge, 2);
    expect(windows.unsent('key', now)).toEqual({ rpm: 0, tpm: 0 });
    // A report older than the settlement (seq 1) leaves it pending: 2 units + 1 pending = 18 s.
    expect(windows.admit('key', limits, 0, now)!.check.requests!.resetMs).toBe(18_000);
    // The settlement's own reply (seq 2) includes it.
    windows.reported('key', 2, now + 12_000, -1);
    expect(windows.unsent('key', now)).toEqual({ rpm: 1, tpm: 0 });
  });

  it('a unit whose settlement never came stops counting after the hold ttl; an unanswered settlement forgets the key', () => {
    const windows = new LocalWindows(60_000);
    windows.reported('key', 1, now, -1);
    const { charge } = windows.admit('key', limits, 0, now)!;
    expect(windows.unsent('key', now)).toEqual({ rpm: 1, tpm: 0 });
    expect(windows.unsent('key', now + 60_001)).toEqual({ rpm: 0, tpm: 0 });
    windows.unanswered(charge);
    expect(windows.admit('key', limits, 0, now)).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { OutageLeases } from './outage-leases.js';

describe('outage leases: what an instance may spend while Redis does not answer', () => {
  const now = 1_000_000;
  function leased(amount: number) {
    const leases = new OutageLeases('one', { share: 4, ttlMs: 60_000, idleMs: 5_000 });
    const request = leases.request('user', 10, now);
    leases.sending('user', request);
    leases.answered('user', request, { amount, free: 1_000 }, now);
    return leases;
  }

  it('spends only the lease Redis reported, hold by hold, and refuses beyond it', () => {
    const leases = leased(100);
    expect(leases.spend('user', 60, now)).toBe(true);
    expect(leases.spend('user', 50, now)).toBe(false);
    expect(leases.spend('user', 40, now)).toBe(true);
    expect(leases.spend('other', 1, now)).toBe(false);
  });

  it('a finished request leaves its charge spent until Redis debits it from the lease', () => {
    const leases = leased(100);
    leases.spend('user', 60, now);
    leases.settled('user', 60, 20);
    expect(leases.of('user')).toEqual({ amount: 100, spent: 20 });
    expect(leases.spend('user', 80, now)).toBe(true);
    leases.debited('user', 20, 80);
    expect(leases.of('user')).toEqual({ amount: 80, spent: 80 });
  });

  it('a lease Redis lost (it came back empty) is not spent from, and the admission asks it back', () => {
    const leases = leased(100);
    leases.spend('user', 30, now);
    leases.debited('user', 0, 0);
    expect(leases.spend('user', 1, now)).toBe(false);
    expect(leases.request('user', 10, now).floor).toBe(30);
  });

  it('nothing is spent locally while an admission that may take from the lease is unanswered or in flight', () => {
    const leases = leased(100);
    const short = leases.request('user', 10, now, true);
    expect(short.mayConvert).toBe(true);
    leases.sending('user', short);
    expect(leases.spend('user', 10, now)).toBe(false);
    leases.unanswered('user', short, true);
    expect(leases.spend('user', 10, now)).toBe(false);
    leases.answered('user', leases.request('user', 10, now), { amount: 100, free: 1_000 }, now);
    expect(leases.spend('user', 10, now)).toBe(true);
  });

  it('stops spending half way through the lease’s time to live, and gives idle leases back', () => {
    const leases = leased(100);
    expect(leases.spend('user', 10, now + 30_000)).toBe(false);
    leases.settled('user', 0, 0);
    expect(leases.idle(now + 1_000)).toEqual([]);
    expect(leases.idle(now + 5_000)).toEqual(['user']);
  });

  describe('local admission (Redis healthy, issue 31)', () => {
    function reported(amount: number, seq: number) {
      const leases = new OutageLeases('one', { share: 4, ttlMs: 60_000, idleMs: 5_000 });
      const request = leases.request('user', 10, now);
      leases.answered('user', request, { amount, free: 1_000, seq }, now);
      return leases;
    }

    it('admits while the unspent part covers the hold, only in the first quarter of the ttl, never without a report', () => {
      const fresh = new OutageLeases('one', { share: 4, ttlMs: 60_000 });
      expect(fresh.admitLocally('user', 1, now)).toBe(false);
      const leases = reported(100, 1);
      expect(leases.admitLocally('user', 60, now)).toBe(true);
      expect(leases.admitLocally('user', 50, now)).toBe(false);
      expect(leases.admitLocally('user', 40, now + 14_999)).toBe(true);
      leases.settled('user', 40, 0);
      expect(leases.admitLocally('user', 10, now + 15_000)).toBe(false);
    });

    it('an older report never replaces a newer one; a debit handled after a newer report counts again (errs low)', () => {
      const leases = reported(100, 5);
      leases.answered('user', undefined, { amount: 400, free: 1_000, seq: 3 }, now);
      expect(leases.of('user')).toEqual({ amount: 100, spent: 0 });
      expect(leases.admitLocally('user', 30, now)).toBe(true);
      leases.settled('user', 30, 30);
      // The settlement ran before call 5 (seq 4): call 5's figure may already show it: counted again, never too high.
      leases.debited('user', 30, 70, 4);
      expect(leases.of('user')).toEqual({ amount: 70, spent: 0 });
      // A newer one replaces it.
      leases.debited('user', 0, 90, 6);
      expect(leases.of('user')?.amount).toBe(90);
    });

    it('nothing is admitted locally while a call that may shrink the lease is in flight or went unanswered', () => {
      const leases = reported(100, 1);
      const converting = leases.request('user', 10, now, true);
      leases.sending('user', converting);
      expect(leases.admitLocally('user', 10, now)).toBe(false);
      leases.unanswered('user', converting, true);
      expect(leases.admitLocally('user', 10, now)).toBe(false);
      leases.answered('user', undefined, { amount: 100, free: 1_000, seq: 2 }, now);
      expect(leases.admitLocally('user', 10, now)).toBe(true);
      leases.shrinkStarted('user');
      expect(leases.admitLocally('user', 10, now)).toBe(false);
      leases.shrinkEnded('user', 50, 3);
      expect(leases.of('user')).toEqual({ amount: 50, spent: 10 });
      expect(leases.admitLocally('user', 40, now)).toBe(true);
      expect(leases.admitLocally('user', 1, now)).toBe(false);
    });
  });
});

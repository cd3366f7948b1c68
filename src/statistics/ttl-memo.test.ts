import { describe, expect, it } from 'vitest';
import { TtlMemo } from './ttl-memo.js';

describe('TtlMemo', () => {
  it('reuses an answer for its TTL, then computes again', async () => {
    let now = 0;
    const memo = new TtlMemo({ now: () => now }, 5000);
    let calls = 0;
    const compute = async () => ++calls;
    expect(await memo.get('k', compute)).toBe(1);
    now = 4999;
    expect(await memo.get('k', compute)).toBe(1);
    now = 5000;
    expect(await memo.get('k', compute)).toBe(2);
  });

  it('with a TTL of 0 shares only an answer still being computed', async () => {
    const memo = new TtlMemo({ now: () => 0 }, 0);
    let calls = 0;
    const compute = async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return calls;
    };
    const [first, second] = await Promise.all([memo.get('k', compute), memo.get('k', compute)]);
    expect([first, second, calls]).toEqual([1, 1, 1]);
    expect(await memo.get('k', compute)).toBe(2);
  });

  it('forgets a failed computation', async () => {
    const memo = new TtlMemo({ now: () => 0 }, 5000);
    await expect(memo.get('k', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await memo.get('k', async () => 'up')).toBe('up');
  });
});

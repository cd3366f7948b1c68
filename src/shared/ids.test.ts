import { describe, expect, it } from 'vitest';
import { newRequestId, randomId, randomIdGenerator, sortableTime } from './ids.js';

describe('randomId', () => {
  it('makes ids of the asked length from the 62-character alphabet, across pool refills, never repeating', () => {
    const seen = new Set<string>();
    // 2,000 ids of 24 characters draw ~50 KB: the 4 KiB pool is refilled many times.
    for (let index = 0; index < 2000; index++) {
      const id = randomId();
      expect(id).toMatch(/^[0-9A-Za-z]{24}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(2000);
    expect(randomId(7)).toHaveLength(7);
    expect(randomIdGenerator.next('hold_')).toMatch(/^hold_[0-9A-Za-z]{24}$/);
  });

  it('uses every character of the alphabet', () => {
    const characters = new Set(Array.from({ length: 500 }, () => randomId()).join(''));
    expect(characters.size).toBe(62);
  });

  it('makes generated ids sort by creation time (B-tree inserts land at the end of the index)', () => {
    const times = [0, 61, 62, Date.UTC(2026, 10, 25), Date.UTC(2026, 10, 25) + 1, Date.UTC(2080, 0, 1)];
    const encoded = times.map(sortableTime);
    expect(encoded[0]).toBe('0000000');
    expect(encoded[1]).toBe('000000z');
    expect(encoded[2]).toBe('0000010');
    for (const text of encoded) expect(text).toHaveLength(7);
    expect([...encoded].sort()).toEqual(encoded);
    const before = sortableTime(Date.now());
    const id = randomIdGenerator.next('usage_');
    const after = sortableTime(Date.now());
    const time = id.slice('usage_'.length, 'usage_'.length + 7);
    expect(time >= before && time <= after).toBe(true);
  });
});

describe('newRequestId', () => {
  it('makes version 7 UUIDs that carry their millisecond and never repeat', () => {
    const seen = new Set<string>();
    for (let index = 0; index < 2000; index++) {
      const id = newRequestId();
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(2000);
    const time = Date.UTC(2026, 10, 26, 14, 30, 0, 123);
    expect(Number.parseInt(newRequestId(time).replace(/-/g, '').slice(0, 12), 16)).toBe(time);
    expect(newRequestId(0).startsWith('00000000-0000-7')).toBe(true);
  });

  it('sorts ids made in later milliseconds after earlier ones (index inserts land at the end)', () => {
    const times = [0, 1, 255, 256, Date.UTC(2026, 10, 25), Date.UTC(2026, 10, 25) + 1, Date.UTC(2080, 0, 1)];
    const ids = times.map((time) => newRequestId(time));
    expect([...ids].sort()).toEqual(ids);
  });
});

import { describe, expect, it } from 'vitest';
import { randomId, randomIdGenerator } from './ids.js';

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
});

import { describe, expect, it } from 'vitest';
import { affinityRandom } from './affinity-random.js';

describe('affinityRandom', () => {
  it('gives one key the same sequence every time, in [0, 1)', () => {
    const first = affinityRandom('conversation-1');
    const second = affinityRandom('conversation-1');
    const values = Array.from({ length: 20 }, () => first());
    expect(Array.from({ length: 20 }, () => second())).toEqual(values);
    for (const value of values) expect(value >= 0 && value < 1).toBe(true);
  });

  it('spreads different keys', () => {
    const firsts = new Set(Array.from({ length: 50 }, (_, index) => Math.floor(affinityRandom(`key-${index}`)() * 4)));
    expect(firsts.size).toBe(4);
  });
});

import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth } from './json-depth.js';

describe('exceedsJsonDepth', () => {
  it.each([
    ['{}', 1, false],
    ['{"a":[1,{"b":2}]}', 3, false],
    ['{"a":[1,{"b":2}]}', 2, true],
    ['[[[]]]', 3, false],
    ['[[[]]]', 2, true],
    // Brackets inside strings, escaped quotes included, are text, not nesting.
    ['{"a":"[[[[[[{{{{"}', 1, false],
    ['{"a":"\\"[[[["}', 1, false],
    ['{"a":"\\\\"}', 1, false],
    ['[[1],[2],[3]]', 2, false],
  ])('%s with limit %i → %s', (text, limit, expected) => {
    expect(exceedsJsonDepth(text, limit)).toBe(expected);
  });

  it('finds 20,000 nested arrays without recursing', () => {
    const deep = `{"extra":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    expect(exceedsJsonDepth(deep, 64)).toBe(true);
  });
});

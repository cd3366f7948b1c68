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
    // An escaped backslash before a quote: the quote ends the string, so the brackets after it count.
    ['{"a":"x\\\\","b":[[[]]]}', 3, true],
    ['{"a":"x\\\\","b":[[[]]]}', 4, false],
    // Three backslashes: the last escapes the quote, the string goes on over the brackets.
    ['{"a":"\\\\\\"[[[[","b":1}', 1, false],
    // A string that never closes hides nothing after it.
    ['{"a":"[[[[', 1, false],
  ])('%s with limit %i → %s', (text, limit, expected) => {
    expect(exceedsJsonDepth(text, limit)).toBe(expected);
  });

  it('finds 20,000 nested arrays without recursing', () => {
    const deep = `{"extra":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    expect(exceedsJsonDepth(deep, 64)).toBe(true);
  });
});

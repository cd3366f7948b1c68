import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth, scanJson } from './json-depth.js';

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

describe('scanJson', () => {
  it.each([
    ['{"model":"m","messages":[{"role":"user","content":"hi"}]}', 'plain'],
    ['{"__proto__":{"admin":true}}', 'suspect-key'],
    ['{"a":{"constructor":{"prototype":{}}}}', 'suspect-key'],
    ['{"a" : 1, "__proto__"\n:1}', 'suspect-key'],
    // Escapes that read __proto__ once decoded.
    ['{"\\u005f_proto__":{}}', 'suspect-key'],
    ['{"\\u005f\\u005fproto\\u005f\\u005f":{}}', 'suspect-key'],
    // The words as values, or a long key with an escape that is not one of them, are plain... or suspect, never missed.
    ['{"content":"__proto__ and constructor are words"}', 'plain'],
    ['{"a":["__proto__","constructor"]}', 'plain'],
    ['{"short\\n":1}', 'plain'],
    ['[[[]]]', 'plain'],
  ])('%s → %s', (text, expected) => {
    expect(scanJson(text, 64)).toBe(expected);
  });

  it('every key secure-json-parse would refuse is suspect', () => {
    for (const key of ['__proto__', 'constructor', '\\u005F\\u005Fproto\\u005F\\u005F', 'c\\u006fnstructor'])
      expect(scanJson(`{"x":1,"${key}":{"prototype":{"polluted":true}}}`, 64)).toBe('suspect-key');
  });

  it('depth wins over a suspect key', () => {
    expect(scanJson('{"__proto__":[[[[]]]]}', 3)).toBe('too-deep');
  });
});

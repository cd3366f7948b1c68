import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { COMMON_PASSWORDS_FILE, commonPasswords, parseCommonPasswords, passwordProblem } from './password-policy.js';

describe('password policy', () => {
  const list = parseCommonPasswords('password\nsunshine\ndragon\nqwertyuiop\n');

  it.each([
    ['short', 'Xk3!abc', /at least 10 characters/],
    ['listed, as is', 'qwertyuiop', /most common/],
    ['listed, other case', 'QwertyUIOP', /most common/],
    ['listed word with digits and symbols added', 'Sunshine2024!', /most common/],
    ['listed word with digits in front', '123456dragon', /most common/],
    ['listed word wrapped in digits', '12password34', /most common/],
  ])('refuses %s', (_name, password, message) => {
    expect(passwordProblem(password, list)).toMatch(message);
  });

  it.each([
    ['a passphrase', 'correct horse battery'],
    ['a listed word inside a longer one', 'sunshineandrain'],
    ['ten characters exactly', 'kx8-pq2-zt'],
    ['non-ASCII letters, counted as characters', 'żółć-gęślą-jaźń'],
  ])('accepts %s', (_name, password) => {
    expect(passwordProblem(password, list)).toBeNull();
  });

  it('counts characters, not UTF-16 units', () => {
    expect(passwordProblem('🔑🔑🔑🔑🔑🔑🔑🔑🔑', list)).toMatch(/at least 10/);
  });

  it('refuses passwords longer than 256 characters', () => {
    expect(passwordProblem('x'.repeat(257), list)).toMatch(/at most 256/);
  });

  it('ships a list of 10,000 common passwords and applies it by default', () => {
    const lines = readFileSync(COMMON_PASSWORDS_FILE, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(10_000);
    expect(commonPasswords().size).toBe(10_000);
    expect(passwordProblem('password123')).toMatch(/most common/);
    expect(passwordProblem('1234567890')).toMatch(/most common/);
    expect(passwordProblem('Football!!2025')).toMatch(/most common/);
    expect(passwordProblem('plum-orbit-42-lantern')).toBeNull();
  });
});

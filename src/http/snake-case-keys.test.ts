import { describe, expect, it } from 'vitest';
import { snakeCaseKeys, toAuthRequestFields, toSnakeCase } from './snake-case-keys.js';

describe('snake_case at the account API edge', () => {
  it.each([
    ['emailVerified', 'email_verified'],
    ['createdAt', 'created_at'],
    ['callbackURL', 'callback_url'],
    ['ipAddress', 'ip_address'],
    ['token', 'token'],
    ['already_snake', 'already_snake'],
  ])('%s → %s', (name, expected) => expect(toSnakeCase(name)).toBe(expected));

  it('renames keys deeply and leaves values alone', () => {
    expect(
      snakeCaseKeys({ user: { emailVerified: false, createdAt: '2026-01-01' }, list: [{ userId: 'camelValue' }] }),
    ).toEqual({ user: { email_verified: false, created_at: '2026-01-01' }, list: [{ user_id: 'camelValue' }] });
  });

  it('maps snake_case request fields to better-auth names; a camelCase one sent too wins', () => {
    expect(toAuthRequestFields({ email: 'a@b.c', remember_me: true, callback_url: '/x' })).toEqual({
      email: 'a@b.c',
      rememberMe: true,
      callbackURL: '/x',
    });
    expect(toAuthRequestFields({ rememberMe: false, remember_me: true })).toEqual({ rememberMe: false });
  });
});

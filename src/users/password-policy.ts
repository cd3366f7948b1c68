import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidRequestError } from '../shared/errors.js';
import { randomId } from '../shared/ids.js';

/** Below this a password is refused (NIST SP 800-63B asks for 8; the issue asks for 10). */
export const MIN_PASSWORD_LENGTH = 10;
/** better-auth's own ceiling; longer passwords only cost hashing time. */
export const MAX_PASSWORD_LENGTH = 256;

/** The shipped list: the 10,000 most common passwords, lower case, one a line (security/SOURCES.md). */
export const COMMON_PASSWORDS_FILE = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'security',
  'common-passwords.txt',
);

let shippedList: ReadonlySet<string> | undefined;

/** The shipped list, read once. */
export function commonPasswords(): ReadonlySet<string> {
  shippedList ??= parseCommonPasswords(readFileSync(COMMON_PASSWORDS_FILE, 'utf8'));
  return shippedList;
}

export function parseCommonPasswords(text: string): ReadonlySet<string> {
  return new Set(
    text
      .split('\n')
      .map((line) => line.trim().toLowerCase())
      .filter((line) => line !== ''),
  );
}

/**
 * Why a password is refused, or null when it is acceptable. Pure given the list, so the sign-up
 * route, the CLI, the first account and change-password all apply the same rule.
 *
 * "Common" is case-insensitive and also catches a listed password with digits or symbols stuck on
 * either end ("Sunshine2024!", "123dragon"): the usual way people stretch a short password to a
 * length rule adds no real strength.
 */
export function passwordProblem(password: string, common: ReadonlySet<string> = commonPasswords()): string | null {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `The password must be at least ${MIN_PASSWORD_LENGTH} characters long.`;
  if (length > MAX_PASSWORD_LENGTH) return `The password must be at most ${MAX_PASSWORD_LENGTH} characters long.`;
  const lower = password.toLowerCase();
  const core = lower.replace(/^[^\p{L}]+/u, '').replace(/[^\p{L}]+$/u, '');
  const candidates = [lower, lower.replace(/[^\p{L}]+$/u, ''), lower.replace(/^[^\p{L}]+/u, ''), core];
  if (candidates.some((candidate) => candidate.length >= 4 && common.has(candidate)))
    return 'This password is one of the most common ones (or one with digits or symbols added): choose another.';
  return null;
}

/** Throws the 400 `weak_password` the API answers for a refused password, naming the field. */
export function assertPasswordAllowed(password: string, param = 'password'): void {
  const problem = passwordProblem(password);
  if (problem) throw new InvalidRequestError(problem, param, 'weak_password');
}

/** A generated password (first account, `users set-password` without one): 20 random base62 characters, checked against the policy. */
export function generatePassword(): string {
  for (;;) {
    const password = randomId(20);
    if (passwordProblem(password) === null) return password;
  }
}

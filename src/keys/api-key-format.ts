import { createHash, randomBytes } from 'node:crypto';

const PREFIX = 'sk-gw-';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 40;

/** A new key: sk-gw- and 40 base62 characters (~238 bits), drawn without modulo bias. */
export function generateApiKey(): string {
  let out = PREFIX;
  while (out.length < PREFIX.length + RANDOM_LENGTH) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && out.length < PREFIX.length + RANDOM_LENGTH) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/** Keys are long random strings, so a fast hash is enough; only this hash is stored. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function looksLikeApiKey(value: string): boolean {
  return value.startsWith(PREFIX) && value.length >= PREFIX.length + 32 && value.length <= 128;
}

/** The parts kept to show a key masked: sk-gw-ab12…wxyz. */
export function maskParts(key: string): { start: string; end: string } {
  return { start: key.slice(0, PREFIX.length + 4), end: key.slice(-4) };
}

export function maskedKey(start: string, end: string): string {
  return `${start}…${end}`;
}

import { randomBytes, randomUUID } from 'node:crypto';

/** Makes ids; injected so tests can make them predictable. */
export interface IdGenerator {
  /** A new id with a readable prefix, e.g. key_3fA9…, chatcmpl-…, call_…. */
  next(prefix: string): string;
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function randomId(length = 24): string {
  let out = '';
  const bytes = randomBytes(length * 2);
  for (let index = 0; index < bytes.length && out.length < length; index++) {
    if (bytes[index] < 248) out += ALPHABET[bytes[index] % 62];
  }
  return out.length === length ? out : out + randomId(length - out.length);
}

export const randomIdGenerator: IdGenerator = {
  next: (prefix) => `${prefix}${randomId(24)}`,
};

export function newRequestId(): string {
  return randomUUID();
}

import { randomFillSync, randomUUID } from 'node:crypto';

/** Makes ids; injected so tests can make them predictable. */
export interface IdGenerator {
  /** A new id with a readable prefix, e.g. key_3fA9…, chatcmpl-…, call_…. */
  next(prefix: string): string;
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/*
 * Random bytes are drawn from a pool refilled 4 KiB at a time: several ids are made per request,
 * and one call into the CSPRNG per id showed in profiles. Bytes are never handed out twice.
 */
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolOffset = POOL_SIZE;

function nextRandomByte(): number {
  if (poolOffset === POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++];
}

export function randomId(length = 24): string {
  let out = '';
  while (out.length < length) {
    const byte = nextRandomByte();
    // 248 = 4 × 62: rejecting the top bytes keeps every character equally likely.
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

export const randomIdGenerator: IdGenerator = {
  next: (prefix) => `${prefix}${randomId(24)}`,
};

export function newRequestId(): string {
  return randomUUID();
}

import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, looksLikeApiKey } from './api-key-format.js';

describe('hashApiKey', () => {
  // Stored keys are found by this digest (SHA-256 hex of the key's UTF-8 bytes): a change of
  // algorithm, encoding or output would lock every existing key out.
  it('is the SHA-256 hex digest that stored keys were hashed with', () => {
    expect(hashApiKey('sk-gw-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcd')).toBe(
      '494ca92be4cb71edd2e13db1e2ec23473830814329ef908a3c7eca3a45908a29',
    );
    expect(hashApiKey('sk-gw-ключ-ünïcode-0123456789abcdefghijklmnopqrstuv')).toBe(
      '14d0f423710e8d651a63df9587b01e263f68bdbef048d922a2cc06d66db97cec',
    );
  });

  it('tells generated keys apart', () => {
    const [first, second] = [generateApiKey(), generateApiKey()];
    expect(looksLikeApiKey(first)).toBe(true);
    expect(hashApiKey(first)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(first)).not.toBe(hashApiKey(second));
  });
});

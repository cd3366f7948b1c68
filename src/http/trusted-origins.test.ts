import { describe, expect, it } from 'vitest';
import { isLoopbackHostname } from './trusted-origins.js';

describe('isLoopbackHostname', () => {
  it('knows the names that can only mean this machine', () => {
    for (const name of ['localhost', 'LOCALHOST', '127.0.0.1', '127.1.2.3', '[::1]'])
      expect(isLoopbackHostname(name)).toBe(true);
    for (const name of ['localhost.evil.example', '128.0.0.1', '127.0.0.1.nip.io', '[::2]', '0.0.0.0', 'example.com'])
      expect(isLoopbackHostname(name)).toBe(false);
  });
});

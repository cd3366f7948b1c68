import { describe, expect, it } from 'vitest';
import { SecretScrubber } from './secret-scrubber.js';

describe('SecretScrubber', () => {
  const scrubber = new SecretScrubber(['sk-live-abcdef123456', 'Bearer tok-9876543210', 'short', undefined, null]);

  it('removes every configured secret wherever it appears', () => {
    expect(scrubber.scrub('key sk-live-abcdef123456 and again sk-live-abcdef123456')).toBe(
      'key [redacted] and again [redacted]',
    );
  });

  it('knows the token inside a configured "Bearer …" value, alone too', () => {
    expect(scrubber.scrub('header was Bearer tok-9876543210')).toBe('header was [redacted]');
    expect(scrubber.scrub('token tok-9876543210 echoed')).toBe('token [redacted] echoed');
  });

  it('ignores values too short to be secrets (they would garble ordinary text)', () => {
    expect(scrubber.scrub('a short story')).toBe('a short story');
    expect(scrubber.size).toBe(3);
  });

  it('finds a secret JSON-escaped inside a log line', () => {
    const withQuote = new SecretScrubber(['pa"ss\\word-123']);
    expect(withQuote.scrub(JSON.stringify({ detail: 'pa"ss\\word-123' }))).toBe('{"detail":"[redacted]"}');
  });

  it('a longer secret containing a shorter one is removed whole', () => {
    const nested = new SecretScrubber(['abcdefgh', 'abcdefgh-ijklmnop']);
    expect(nested.scrub('x abcdefgh-ijklmnop y abcdefgh')).toBe('x [redacted] y [redacted]');
  });

  it('replace() forgets secrets no longer configured', () => {
    const changing = new SecretScrubber(['old-secret-value']);
    changing.replace(['new-secret-value']);
    expect(changing.scrub('old-secret-value new-secret-value')).toBe('old-secret-value [redacted]');
  });
});

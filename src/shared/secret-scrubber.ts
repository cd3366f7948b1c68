/**
 * Removes configured secrets (provider keys, custom header values, signing material) from text
 * that leaves the process: error messages sent to clients and every log line. An upstream that
 * echoes what it was sent (its Authorization header, a custom header) must not hand the
 * gateway's credentials to a client or to whoever reads the logs.
 *
 * Values shorter than MIN_SECRET_LENGTH are not treated as secrets: a header such as
 * `x-version: 2` would otherwise garble every message containing a "2", and a credential that
 * short would be guessable anyway.
 */
const MIN_SECRET_LENGTH = 8;
const REDACTED = '[redacted]';

export class SecretScrubber {
  private secrets: string[] = [];

  constructor(secrets: Iterable<string | undefined | null> = []) {
    this.replace(secrets);
  }

  /** Swaps the whole set (a config reload): secrets no longer configured stop being scrubbed. */
  replace(secrets: Iterable<string | undefined | null>): void {
    const unique = new Set<string>();
    for (const secret of secrets) {
      if (typeof secret !== 'string') continue;
      const trimmed = secret.trim();
      if (trimmed.length >= MIN_SECRET_LENGTH) unique.add(trimmed);
      // `Bearer sk-…` as configured in a header: the token alone may be echoed too.
      const token = /^(?:bearer|basic|token)\s+(\S+)$/i.exec(trimmed)?.[1];
      if (token && token.length >= MIN_SECRET_LENGTH) unique.add(token);
    }
    // Longest first, so a secret that contains another is removed whole.
    this.secrets = [...unique].sort((a, b) => b.length - a.length);
  }

  /** Adds secrets to the set (material known only after start-up, such as the installation secret). */
  add(secrets: Iterable<string | undefined | null>): void {
    this.replace([...this.secrets, ...secrets]);
  }

  get size(): number {
    return this.secrets.length;
  }

  scrub(text: string): string {
    let result = text;
    for (const secret of this.secrets) {
      if (result.includes(secret)) result = result.split(secret).join(REDACTED);
      // A JSON-encoded log line or error body may carry the secret with its characters escaped.
      const escaped = JSON.stringify(secret).slice(1, -1);
      if (escaped !== secret && result.includes(escaped)) result = result.split(escaped).join(REDACTED);
    }
    return result;
  }

  contains(text: string): boolean {
    return this.secrets.some((secret) => text.includes(secret));
  }
}

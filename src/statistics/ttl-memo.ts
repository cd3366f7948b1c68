import type { Clock } from '../shared/clock.js';

/**
 * Remembers computed answers for a few seconds: rollups change once a second at most, and a
 * burst of identical public requests should cost one query, not one each.
 */
export class TtlMemo {
  private readonly entries = new Map<string, { expiresAt: number; value: Promise<unknown> }>();

  constructor(private readonly clock: Clock, private readonly ttlMs: number) {}

  get<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const now = this.clock.now();
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt > now) return entry.value as Promise<T>;
    if (this.entries.size > 1000) this.entries.clear();
    const value = compute();
    this.entries.set(key, { expiresAt: now + this.ttlMs, value });
    value.catch(() => this.entries.delete(key));
    return value;
  }
}

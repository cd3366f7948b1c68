import type { Clock } from '../shared/clock.js';

/**
 * Remembers computed answers for a few seconds: rollups change once a second at most, and a
 * burst of identical public requests should cost one query, not one each.
 */
export class TtlMemo {
  private readonly entries = new Map<string, { expiresAt: number; settled: boolean; value: Promise<unknown> }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  /** An answer still being computed is shared too, even with a TTL of 0: identical concurrent calls run one query. */
  get<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const now = this.clock.now();
    const entry = this.entries.get(key);
    if (entry && (!entry.settled || entry.expiresAt > now)) return entry.value as Promise<T>;
    if (this.entries.size > 1000) this.entries.clear();
    const value = compute();
    const created = { expiresAt: now + this.ttlMs, settled: false, value };
    this.entries.set(key, created);
    value.then(
      () => (created.settled = true),
      () => {
        created.settled = true;
        if (this.entries.get(key) === created) this.entries.delete(key);
      },
    );
    return value;
  }
}

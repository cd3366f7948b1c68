import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import type { Clock } from '../shared/clock.js';
import type { ApiKeyRecord } from '../routing/api-key-record.js';
import { toApiKeyRecord } from './to-api-key-record.js';
import { findApiKeyAtFeedPosition, keyChangesSince, latestKeyChangeId, touchApiKeys } from './api-key-repository.js';

export interface ApiKeyCacheOptions {
  /** How often to read the key change feed; a revoked key stops working within this (plus a query). */
  pollIntervalMs?: number;
  /** How long an unknown hash is remembered as unknown. */
  negativeTtlMs?: number;
  /** How often last_used_at is written. */
  touchFlushMs?: number;
}

/**
 * API keys by hash, served from memory so the hot path does no database read per request.
 * Misses load from the store; changes reach every instance through the key_changes feed
 * (polled) and, with Redis, through pub/sub for instant invalidation.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, ApiKeyRecord | null>();
  private readonly negativeUntil = new Map<string, number>();
  private readonly inflight = new Map<string, Promise<ApiKeyRecord | null>>();
  private readonly lastUsed = new Map<string, number>();
  /** For each cached key, the change feed position its row already reflects. */
  private readonly loadedAt = new Map<string, number>();
  private lastChangeId = 0;
  private pollTimer: NodeJS.Timeout | undefined;
  private touchTimer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private readonly options: Required<ApiKeyCacheOptions>;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: ApiKeyCacheOptions = {},
  ) {
    this.options = { pollIntervalMs: 500, negativeTtlMs: 2_000, touchFlushMs: 5_000, ...options };
  }

  async start(): Promise<void> {
    this.lastChangeId = await latestKeyChangeId(this.store.db);
    this.pollTimer = setInterval(() => void this.pollChanges(), this.options.pollIntervalMs);
    this.pollTimer.unref();
    this.touchTimer = setInterval(() => void this.flushLastUsed(), this.options.touchFlushMs);
    this.touchTimer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.pollTimer);
    clearInterval(this.touchTimer);
    await this.polling;
    await this.flushLastUsed();
  }

  /** The key for a hash, or null when no such key exists. */
  get(keyHash: string): ApiKeyRecord | null | Promise<ApiKeyRecord | null> {
    const cached = this.entries.get(keyHash);
    if (cached !== undefined) {
      if (cached !== null) return cached;
      if ((this.negativeUntil.get(keyHash) ?? 0) > this.clock.now()) return null;
    }
    let pending = this.inflight.get(keyHash);
    if (!pending) {
      pending = this.load(keyHash).finally(() => this.inflight.delete(keyHash));
      this.inflight.set(keyHash, pending);
    }
    return pending;
  }

  /** Drops a key from memory; the next request reloads it. */
  invalidate(keyHash: string): void {
    this.entries.delete(keyHash);
    this.negativeUntil.delete(keyHash);
    this.loadedAt.delete(keyHash);
  }

  noteUsed(keyId: string): void {
    this.lastUsed.set(keyId, this.clock.now());
  }

  /** Reads the change feed now (also called by the poller). */
  async pollChanges(): Promise<void> {
    if (this.polling) return this.polling;
    this.polling = (async () => {
      try {
        const changes = await keyChangesSince(this.store.db, this.lastChangeId);
        for (const change of changes) {
          // A change the cached row already reflects (the key was loaded after it, e.g. its own
          // creation) must not drop it: the next request would need the store, which may be down.
          if (Number(change.id) > (this.loadedAt.get(change.key_hash) ?? -1)) this.invalidate(change.key_hash);
          this.lastChangeId = Math.max(this.lastChangeId, Number(change.id));
        }
      } catch (error) {
        this.logger.warn(
          { err: error },
          'could not read the API key change feed; cached keys may be stale until it recovers',
        );
      } finally {
        this.polling = undefined;
      }
    })();
    return this.polling;
  }

  private async load(keyHash: string): Promise<ApiKeyRecord | null> {
    const found = await findApiKeyAtFeedPosition(this.store.db, keyHash);
    const record = found ? toApiKeyRecord(found.row, keyHash) : null;
    this.entries.set(keyHash, record);
    if (found) this.loadedAt.set(keyHash, found.feedPosition);
    if (!record) this.negativeUntil.set(keyHash, this.clock.now() + this.options.negativeTtlMs);
    if (this.entries.size > 100_000) this.evictOldest();
    return record;
  }

  private evictOldest(): void {
    const excess = this.entries.size - 90_000;
    let removed = 0;
    for (const key of this.entries.keys()) {
      if (removed++ >= excess) break;
      this.entries.delete(key);
      this.negativeUntil.delete(key);
      this.loadedAt.delete(key);
    }
  }

  private async flushLastUsed(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const batch = new Map(this.lastUsed);
    this.lastUsed.clear();
    try {
      await touchApiKeys(this.store.db, batch);
    } catch (error) {
      this.logger.warn({ err: error }, 'could not record when API keys were last used');
    }
  }
}

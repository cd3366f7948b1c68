/**
 * Where the hot counters live in Redis. Every key a script touches in one call carries the same
 * hash tag, `{m:<shard>}`, so that on a Redis Cluster they are in one slot (a script may only
 * touch keys of one slot) and the scripts stay atomic. An account's shard comes from its owner
 * (the user; a key's owner is its user), so a user's counters, holds and outage leases, the
 * counters and rate windows of every key of that user, and the settlement stream and data
 * generation those scripts write to, all share one slot. The accounts spread over SHARDS slots,
 * hence over the cluster's nodes; each shard has its own settlement stream and generation.
 *
 * The prefix (tests use a random one) must not contain `{`: Redis would hash that instead.
 */
const METERING_SHARDS = 16;

export interface UserKeys {
  user: string;
  userHolds: string;
  userExpiry: string;
}

export interface KeyKeys {
  key: string;
  keyHolds: string;
  keyExpiry: string;
}

export class HotKeyLayout {
  readonly shards: number[];

  constructor(
    readonly prefix: string,
    shardCount = METERING_SHARDS,
  ) {
    if (prefix.includes('{')) throw new Error(`the Redis key prefix must not contain "{": ${prefix}`);
    this.shards = Array.from({ length: shardCount }, (_, shard) => shard);
  }

  /** The shard of an account's owner: the user, or the key when it has no user. */
  shardOf(owner: string): number {
    // FNV-1a: stable across processes and versions (every instance must agree).
    let hash = 0x811c9dc5;
    for (let index = 0; index < owner.length; index++) {
      hash ^= owner.charCodeAt(index);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    return hash % this.shards.length;
  }

  /** Counters hash, holds hash and expiry set of a user (placeholders when there is none). */
  user(shard: number, userId: string | null): UserKeys {
    const [user, userHolds, userExpiry] = this.account(shard, userId === null ? null : `u:${userId}`);
    return { user, userHolds, userExpiry };
  }

  key(shard: number, keyId: string | null): KeyKeys {
    const [key, keyHolds, keyExpiry] = this.account(shard, keyId === null ? null : `k:${keyId}`);
    return { key, keyHolds, keyExpiry };
  }

  /** The counters hash of an account (`u:<user id>` or `k:<key id>`). */
  counters(shard: number, account: string): string {
    return `${this.base(shard)}hot:${account}`;
  }

  /** Rate window of a key (its tat, as the generic cell rate algorithm keeps it). */
  bucket(shard: number, kind: 'rpm' | 'tpm', keyId: string): string {
    return `${this.base(shard)}limit:${kind}:${keyId}`;
  }

  /** The settlement stream of a shard (drained into the store by every instance, one consumer group). */
  stream(shard: number): string {
    return `${this.base(shard)}settlements`;
  }

  /** The data generation of a shard (its node may lose its data without the others). */
  generation(shard: number): string {
    return `${this.base(shard)}hot:generation`;
  }

  /** Accounts loaded in a shard (reconcile rebuilds them). */
  loaded(shard: number): string {
    return `${this.base(shard)}hot:loaded`;
  }

  /** A key of the shard that holds nothing: the place of an account a call does not have. */
  none(shard: number): string {
    return `${this.base(shard)}hot:none`;
  }

  private account(shard: number, account: string | null): [string, string, string] {
    if (account === null) return [this.none(shard), this.none(shard), this.none(shard)];
    const counters = this.counters(shard, account);
    return [counters, `${counters}:holds`, `${counters}:expiry`];
  }

  private base(shard: number): string {
    return `${this.prefix}{m:${shard}}:`;
  }
}

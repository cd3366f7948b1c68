import type { RedisClient } from '../store/redis-client.js';
import type { CounterDrift } from './hot-counters.js';
import type { CounterSource } from './counter-source.js';
import { BALANCE, LOAD_KEY, LOAD_USER, PEEK } from './redis-load-scripts.js';
import type { HotKeyLayout } from './redis-hot-keys.js';

/**
 * The load and repair side of the Redis hot counters: an account's counters loaded from the store
 * on its first use here (or after Redis lost them), and replaced by a reconcile, which reports how
 * far each had drifted. A load waits while a store write of the account is under way.
 */
export class RedisAccountLoads {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: HotKeyLayout,
    private readonly source: CounterSource,
    private readonly writeLeaseMs: number,
    /** Ends this instance's store writes whose end Redis did not answer (their marks make loads wait). */
    private readonly endUnanswered: () => Promise<void>,
  ) {}

  /** Replaces every loaded account's counters from the store; returns those that had drifted. */
  async reconcile(now: number): Promise<CounterDrift[]> {
    await this.endUnanswered();
    const drift: CounterDrift[] = [];
    for (const shard of this.keys.shards) {
      const members = await this.redis.smembers(this.keys.loaded(shard));
      for (const member of members) {
        const id = member.slice(2);
        // A store write left by a killed instance keeps loads waiting until its lease runs out: wait it out.
        const patience = this.writeLeaseMs + 5_000;
        const previous = member.startsWith('u:')
          ? await this.loadUser(shard, id, now, true, patience)
          : await this.loadKey(shard, id, true, patience);
        if (previous.replaced !== previous.expected)
          drift.push({
            entity: `${member.startsWith('u:') ? 'user' : 'key'} ${id}`,
            expected: previous.expected,
            actual: previous.replaced,
          });
      }
    }
    return drift;
  }

  /**
   * Loads (force: replaces) a user's balance from the ledger. The epoch read first and checked by
   * the load script proves no store write of this user began or ended in between; while one is
   * under way the load waits for it.
   */
  async loadUser(
    shard: number,
    userId: string,
    now: number,
    force: boolean,
    patienceMs = LOAD_PATIENCE_MS,
  ): Promise<LoadResult> {
    const keys = this.keys.user(shard, userId);
    const what = `the balance of user ${userId}`;
    return this.loadBetweenWrites(
      { account: keys.user, loadedField: 'bal', force, patienceMs, what },
      async (epoch) => {
        const stored = await this.source.balance(userId);
        const load = await LOAD_USER.run(this.redis, {
          keys: { user: keys.user, loadedSet: this.keys.loaded(shard) },
          args: { epoch, ledgerBalance: stored.balance, now: Date.now(), member: `u:${userId}`, force },
        });
        if (!load.loaded) return null;
        const { balance } = await BALANCE.run(this.redis, { keys, args: { now } });
        return { replaced: load.previous, expected: balance ?? 0 };
      },
    );
  }

  /** Loads (force: replaces) a key's spend from the store, as loadUser does a balance. */
  async loadKey(shard: number, keyId: string, force: boolean, patienceMs = LOAD_PATIENCE_MS): Promise<LoadResult> {
    const { key } = this.keys.key(shard, keyId);
    const what = `the spend of key ${keyId}`;
    return this.loadBetweenWrites({ account: key, loadedField: 'tot', force, patienceMs, what }, async (epoch) => {
      const stored = await this.source.keySpend(keyId);
      const load = await LOAD_KEY.run(this.redis, {
        keys: { key, loadedSet: this.keys.loaded(shard) },
        args: {
          epoch,
          month: stored.month ?? '',
          monthSpend: stored.monthSpend,
          total: stored.totalSpend,
          now: Date.now(),
          member: `k:${keyId}`,
          force,
        },
      });
      if (!load.loaded) return null;
      const total = await this.redis.hget(key, 'tot');
      return { replaced: load.previous, expected: Number(total) };
    });
  }

  /**
   * Runs `load` with the account's write epoch once no store write of it is under way, again while
   * writes keep overlapping it (`load` resolves null), up to `patienceMs`. An account already loaded
   * is left as it is unless `force`.
   */
  private async loadBetweenWrites(
    target: { account: string; loadedField: 'bal' | 'tot'; force: boolean; patienceMs: number; what: string },
    load: (epoch: string) => Promise<LoadResult | null>,
  ): Promise<LoadResult> {
    const deadline = Date.now() + target.patienceMs;
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      const peek = await PEEK.run(this.redis, {
        keys: { account: target.account },
        args: { now: Date.now(), loadedField: target.loadedField },
      });
      if (peek.loaded && !target.force) return { replaced: null, expected: 0 };
      if (peek.busy) {
        // The write under way may be one of ours whose end Redis did not answer.
        await this.endUnanswered().catch(() => undefined);
        await pause(attempt);
        continue;
      }
      const loaded = await load(peek.epoch);
      if (loaded) return loaded;
      await pause(attempt);
    }
    throw new Error(
      `${target.what} could not be loaded: store writes kept overlapping for ${Math.round(target.patienceMs / 1000)} s`,
    );
  }
}

/** What a load replaced (null: nothing, or left as it was) and what the counters hold after it. */
interface LoadResult {
  replaced: number | null;
  expected: number;
}

/** How long a load on the request path waits for overlapping store writes before giving up (503). */
const LOAD_PATIENCE_MS = 10_000;

function pause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.min(2 + attempt, 20)));
}

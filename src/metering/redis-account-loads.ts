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
  async loadUser(shard: number, userId: string, now: number, force: boolean, patienceMs = LOAD_PATIENCE_MS) {
    const keys = this.keys.user(shard, userId);
    const deadline = Date.now() + patienceMs;
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      const peek = await PEEK.run(this.redis, {
        keys: { account: keys.user },
        args: { now: Date.now(), loadedField: 'bal' },
      });
      if (peek.loaded && !force) return { replaced: null, expected: 0 };
      if (peek.busy) {
        // The write under way may be one of ours whose end Redis did not answer.
        await this.endUnanswered().catch(() => undefined);
        await pause(attempt);
        continue;
      }
      const stored = await this.source.balance(userId);
      const load = await LOAD_USER.run(this.redis, {
        keys: { user: keys.user, loadedSet: this.keys.loaded(shard) },
        args: { epoch: peek.epoch, ledgerBalance: stored.balance, now: Date.now(), member: `u:${userId}`, force },
      });
      if (load.loaded) {
        const { balance } = await BALANCE.run(this.redis, { keys, args: { now } });
        return { replaced: load.previous, expected: balance ?? 0 };
      }
      await pause(attempt);
    }
    throw new Error(
      `the balance of user ${userId} could not be loaded: store writes kept overlapping for ${Math.round(patienceMs / 1000)} s`,
    );
  }

  async loadKey(shard: number, keyId: string, force: boolean, patienceMs = LOAD_PATIENCE_MS) {
    const { key } = this.keys.key(shard, keyId);
    const deadline = Date.now() + patienceMs;
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      const peek = await PEEK.run(this.redis, {
        keys: { account: key },
        args: { now: Date.now(), loadedField: 'tot' },
      });
      if (peek.loaded && !force) return { replaced: null, expected: 0 };
      if (peek.busy) {
        // The write under way may be one of ours whose end Redis did not answer.
        await this.endUnanswered().catch(() => undefined);
        await pause(attempt);
        continue;
      }
      const stored = await this.source.keySpend(keyId);
      const load = await LOAD_KEY.run(this.redis, {
        keys: { key, loadedSet: this.keys.loaded(shard) },
        args: {
          epoch: peek.epoch,
          month: stored.month ?? '',
          monthSpend: stored.monthSpend,
          total: stored.totalSpend,
          now: Date.now(),
          member: `k:${keyId}`,
          force,
        },
      });
      if (load.loaded) {
        const total = await this.redis.hget(key, 'tot');
        return { replaced: load.previous, expected: Number(total) };
      }
      await pause(attempt);
    }
    throw new Error(
      `the spend of key ${keyId} could not be loaded: store writes kept overlapping for ${Math.round(patienceMs / 1000)} s`,
    );
  }
}

/** How long a load on the request path waits for overlapping store writes before giving up (503). */
const LOAD_PATIENCE_MS = 10_000;

function pause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.min(2 + attempt, 20)));
}

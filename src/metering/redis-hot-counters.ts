import { randomUUID } from 'node:crypto';
import { deriveRedis, type RedisClient } from '../store/redis-client.js';
import type { RateCheck } from './rate-limit-window.js';
import type {
  AdmissionCheck,
  AdmissionDecision,
  CounterDrift,
  Hold,
  HotCounters,
  LedgerWriteTicket,
  Settlement,
} from './hot-counters.js';
import type { CounterSource } from './counter-source.js';
import { monthOf } from './key-spend.js';
import type { SettlementRecord } from './settlement-record.js';
import {
  ACK_SETTLEMENTS,
  ADMIT,
  BEGIN_WRITE,
  END_LEDGER_WRITE,
  END_WRITES,
  HOT_SCRIPTS,
  SETTLE,
  SHRINK_LEASE,
  type AdmitReply,
} from './redis-hot-scripts.js';
import { BALANCE, GENERATION, LOAD_KEY, LOAD_USER, PEEK } from './redis-load-scripts.js';
import { HotKeyLayout } from './redis-hot-keys.js';

/** A store write announced to Redis: its id ends it, once, on the accounts (of one shard) it marked. */
export interface StoreWrite {
  id: string;
  shard: number;
  keys: string[];
}

export interface RedisHotCountersOptions {
  prefix?: string;
  /** Shards the accounts spread over (redis-hot-keys.ts); every instance must use the same number. */
  shards?: number;
  /** How long a store write may keep account loads waiting if its instance died mid-write. */
  writeLeaseMs?: number;
  /**
   * Refuse holds (RedisDataLostError) while Redis has no data generation or is fenced after a data
   * loss. Metering sets it up (it creates the generation before serving); bare counters do not.
   */
  guardGeneration?: boolean;
}

/** Redis lost its data and the settlements it held are not all rewritten yet: holds wait (503). */
export class RedisDataLostError extends Error {
  constructor() {
    super('Redis came back without its data; credit holds resume once the settlements it lost are written again');
  }
}

/**
 * Hot counters in Redis, shared by every instance: an admission is one script call (one round
 * trip), a settlement another that also appends the durable record to the settlement stream.
 * Commands fail fast (the installation's client: no offline queue, a short timeout) so an outage
 * surfaces as an error the caller handles (metering's fallbacks) instead of requests hanging.
 */
export class RedisHotCounters implements HotCounters {
  readonly name = 'redis';
  readonly redis: RedisClient;
  readonly prefix: string;
  /** Where every key is (hash-tagged per account shard). */
  readonly keys: HotKeyLayout;
  private readonly writeLeaseMs: number;
  private readonly guardGeneration: boolean;
  /** Store writes this instance began whose end Redis did not confirm. */
  private readonly unended = new Set<StoreWrite>();
  /** Store writes under way (begun, not yet ended): marked again on a Redis that lost its data. */
  private readonly active = new Set<StoreWrite>();

  constructor(
    base: RedisClient,
    private readonly source: CounterSource,
    options: RedisHotCountersOptions = {},
  ) {
    this.prefix = options.prefix ?? 'gateway:';
    this.keys = new HotKeyLayout(this.prefix, options.shards);
    this.writeLeaseMs = options.writeLeaseMs ?? 30_000;
    this.guardGeneration = options.guardGeneration ?? false;
    // The installation's client (openRedis) already fails fast: its command timeout
    // (redis.command_timeout_ms), no offline queue, no resend after a reconnect, a background
    // reconnect; duplicate() keeps all of it, so this connection sets none of its own.
    const redis = deriveRedis(base, { lazyConnect: false });
    // Errors are reported per command to the caller; this only keeps ioredis from crashing the process.
    redis.on('error', () => undefined);
    for (const script of HOT_SCRIPTS) script.install(redis);
    this.redis = redis;
  }

  /** Resolves when connected (start-up waits a little so the first requests find Redis). */
  async ready(timeoutMs = 2000): Promise<boolean> {
    if (this.redis.status === 'ready') return true;
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.redis.once('ready', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  async admit(check: AdmissionCheck): Promise<AdmissionDecision> {
    const { hold, rate, now, lease } = check;
    const userId = hold?.userId ?? null;
    const leaseId = lease && hold?.trackUser ? lease.id : null;
    // The key's counters and rate windows live beside its user's (one slot).
    const shard = this.keys.shardOf(check.userId);
    for (let attempt = 0; ; attempt++) {
      const reply = await ADMIT.run(this.redis, {
        keys: {
          rpmBucket: this.keys.bucket(shard, 'rpm', check.keyId),
          tpmBucket: this.keys.bucket(shard, 'tpm', check.keyId),
          ...this.keys.user(shard, hold?.trackUser ? userId : null),
          ...this.keys.key(shard, hold?.trackKey ? check.keyId : null),
          generation: this.keys.generation(shard),
        },
        args: {
          now,
          tokens: Math.max(0, Math.ceil(rate?.tokens ?? 0)),
          rpmLimit: rate?.limits.rpmLimit ?? 0,
          tpmLimit: rate?.limits.tpmLimit ?? 0,
          holdId: hold?.id ?? null,
          amount: hold?.amount ?? 0,
          expiresAt: hold?.expiresAt ?? 0,
          trackUser: hold?.trackUser ?? false,
          trackKey: hold?.trackKey ?? false,
          monthlyQuota: check.monthlyQuota,
          lifetimeLimit: check.lifetimeLimit,
          month: monthOf(now),
          leaseId,
          leaseFloor: lease?.floor ?? 0,
          leaseShare: lease?.share ?? 0,
          leaseExpiresAt: lease?.expiresAt ?? 0,
          mayConvert: lease?.mayConvert ?? false,
          guardGeneration: this.guardGeneration,
        },
      });
      switch (reply.outcome) {
        case 'data_lost':
          throw new RedisDataLostError();
        case 'load_user':
        case 'load_key':
          // First use of this account here (or after a reconcile): load it from the store, then decide.
          if (attempt >= 3) throw new Error('hot counters could not be loaded');
          if (reply.outcome === 'load_user' && userId !== null) await this.loadUser(shard, userId, now, false);
          else await this.loadKey(shard, check.keyId, false);
          continue;
        default:
          return decision(check, reply);
      }
    }
  }

  async settle(settlement: Settlement): Promise<void> {
    await this.settleScript(settlement, JSON.stringify(settlement.record));
  }

  /**
   * Settles; resolves with the stream entry id, the lease after when the settlement debited one
   * (else -1), and the shard whose stream took the record.
   */
  async settleFromLease(settlement: Settlement): Promise<{ entryId: string; lease: number; shard: number }> {
    return this.settleScript(settlement, JSON.stringify(settlement.record));
  }

  /** The shard of a settlement's (or a record's) accounts: its user's, or its key's without a user. */
  shardOfSettlement(userId: string | null, keyId: string | null): number {
    return this.keys.shardOf(userId ?? keyId ?? '');
  }

  /**
   * A shard's data generation (set if it has none) and the oldest unwritten settlement's entry id
   * in its stream; `fenceUntil` refuses its holds until then (the caller found the data lost).
   */
  async generation(
    shard: number,
    candidate: string,
    fenceUntil?: number,
    fenceIfNew?: number,
  ): Promise<{ generation: string; oldest: string }> {
    return GENERATION.run(this.redis, {
      keys: { generation: this.keys.generation(shard), stream: this.keys.stream(shard) },
      args: { candidate, fenceUntil: fenceUntil ?? null, fenceIfNew: fenceIfNew ?? null },
    });
  }

  /**
   * Redis lost this shard's data, write marks included: the store writes still under way are
   * marked again, and so are the accounts of `lost` (records about to be written to the store
   * directly). Until those writes end, a load of their accounts waits: a balance read from the
   * ledger before their commit would miss their charges, and every later admission would spend
   * them a second time. Returns the write to end (endMarks) once `lost` is in the store.
   */
  async markAgain(shard: number, lost: SettlementRecord[]): Promise<StoreWrite> {
    const now = Date.now();
    for (const write of this.active) if (write.shard === shard && write.keys.length > 0) await this.mark(write, now);
    return this.begin(shard, this.accountsOf(shard, lost));
  }

  /** Ends a write begun by markAgain (its records are in the store, or its lease will end it). */
  async endMarks(write: StoreWrite): Promise<void> {
    if (write.keys.length > 0) await this.end(write, () => this.unmark(write));
    else this.active.delete(write);
  }

  /** Releases the hold and moves nothing else (the record went to the store another way). */
  async releaseOnly(settlement: Settlement): Promise<void> {
    await this.settleScript({ ...settlement, charge: 0, keySpend: 0, tokens: null, leaseDebit: undefined }, null);
  }

  /** Takes an amount out of an instance's outage lease; resolves with the lease after. */
  async shrinkLease(userId: string, leaseId: string, amount: number): Promise<number> {
    return SHRINK_LEASE.run(this.redis, {
      keys: this.keys.user(this.keys.shardOf(userId), userId),
      args: { leaseId, amount },
    });
  }

  /**
   * Releases a hold and nothing else: one whose admission got no answer (it may have been taken
   * when Redis woke up). Releasing a hold that is not there changes nothing.
   */
  async releaseHold(hold: Hold, now: number): Promise<void> {
    const keyId = hold.trackKey ? hold.keyId : null;
    await this.settleScript(
      {
        hold,
        userId: hold.trackUser ? hold.userId : null,
        keyId,
        charge: 0,
        keySpend: 0,
        month: monthOf(now),
        tokens: null,
        now,
      },
      null,
    );
  }

  private async settleScript(
    settlement: Omit<Settlement, 'record'>,
    record: string | null,
  ): Promise<{ entryId: string; lease: number; shard: number }> {
    const { hold, userId, keyId } = settlement;
    const shard = this.shardOfSettlement(userId, keyId);
    const { entryId, leaseAfter } = await SETTLE.run(this.redis, {
      keys: {
        tpmBucket: keyId ? this.keys.bucket(shard, 'tpm', keyId) : this.keys.none(shard),
        ...this.keys.user(shard, userId),
        ...this.keys.key(shard, keyId),
        stream: this.keys.stream(shard),
      },
      args: {
        now: settlement.now,
        holdId: hold?.id ?? null,
        charge: settlement.charge,
        keySpend: settlement.keySpend,
        month: settlement.month,
        tpmDelta: settlement.tokens?.delta ?? 0,
        tpmLimit: settlement.tokens?.limits.tpmLimit ?? 0,
        record,
        hasUser: userId !== null,
        hasKey: keyId !== null,
        leaseId: settlement.leaseDebit?.id ?? null,
        leaseDebit: settlement.leaseDebit?.amount ?? 0,
      },
    });
    return { entryId, lease: leaseAfter, shard };
  }

  async balance(userId: string, now: number): Promise<{ balance: number; held: number }> {
    const shard = this.keys.shardOf(userId);
    for (let attempt = 0; ; attempt++) {
      const { balance, held } = await BALANCE.run(this.redis, { keys: this.keys.user(shard, userId), args: { now } });
      if (balance !== null) return { balance, held };
      if (attempt >= 3) throw new Error('hot counters could not be loaded');
      await this.loadUser(shard, userId, now, false);
    }
  }

  async ledgerWrite(userIds: string[]): Promise<LedgerWriteTicket> {
    // One write per shard: a script touches the keys of one slot only.
    const byShard = new Map<number, string[]>();
    for (const userId of userIds) {
      const shard = this.keys.shardOf(userId);
      byShard.set(shard, [...(byShard.get(shard) ?? []), userId]);
    }
    const writes: Array<{ write: StoreWrite; users: string[] }> = [];
    for (const [shard, users] of byShard)
      writes.push({
        write: await this.begin(
          shard,
          users.map((userId) => this.keys.counters(shard, `u:${userId}`)),
        ),
        users,
      });
    return {
      done: async (moves) => {
        for (const { write, users } of writes)
          await this.end(write, () =>
            END_LEDGER_WRITE.run(this.redis, {
              keys: {},
              keyList: write.keys,
              args: { writeId: write.id },
              argList: users.map((userId) => ({
                amount: moves.filter((move) => move.userId === userId).reduce((sum, move) => sum + move.amount, 0),
              })),
            }),
          );
      },
    };
  }

  /**
   * A settlement batch of one shard's stream is about to be written to the store; pass what it
   * returns to endWrite.
   */
  async beginWrite(shard: number, records: SettlementRecord[]): Promise<StoreWrite> {
    return this.begin(shard, this.accountsOf(shard, records));
  }

  /** The batch is over: acknowledged stream entries (when committed) stop counting as pending. */
  async endWrite(
    group: string,
    entries: Array<{ id: string; record: SettlementRecord }>,
    committed: boolean,
    write: StoreWrite,
  ): Promise<void> {
    // The accounts marked at the batch's begin: those of these entries.
    const { shard, keys: accounts } = write;
    // Each entry names its accounts by their place in the list (1-based; 0: none).
    const place = (account: string | null) => (account === null ? 0 : accounts.indexOf(account) + 1);
    const acknowledged = committed
      ? entries.map(({ id, record }) => {
          const { event, charge } = record;
          const priced = event.cost_nanos > 0;
          return {
            id,
            userAccount: place(
              priced && charge && event.user_id ? this.keys.counters(shard, `u:${event.user_id}`) : null,
            ),
            charge: event.cost_nanos,
            keyAccount: place(priced && event.key_id ? this.keys.counters(shard, `k:${event.key_id}`) : null),
            keySpend: event.cost_nanos,
            month: monthOf(event.created_at),
          };
        })
      : [];
    await this.end(write, () =>
      ACK_SETTLEMENTS.run(this.redis, {
        keys: { stream: this.keys.stream(shard) },
        keyList: accounts,
        args: { group, writeId: write.id },
        argList: acknowledged,
      }),
    );
  }

  /**
   * Ends the store writes whose end (or begin) got no answer from Redis: until then their marks
   * keep the accounts' loads waiting. Called before each batch and before a reconcile.
   */
  async endUnanswered(): Promise<void> {
    for (const write of [...this.unended]) {
      if (write.keys.length > 0) await this.unmark(write);
      this.unended.delete(write);
    }
  }

  /** Marks the write's accounts (by its id) until its lease runs out: their loads wait meanwhile. */
  private async mark(write: StoreWrite, now: number): Promise<void> {
    await BEGIN_WRITE.run(this.redis, {
      keys: {},
      keyList: write.keys,
      args: { now, leaseMs: this.writeLeaseMs, writeId: write.id },
    });
  }

  /** Takes the write's marks off (an end already run, or a begin that never ran, changes nothing). */
  private async unmark(write: StoreWrite): Promise<void> {
    await END_WRITES.run(this.redis, { keys: {}, keyList: write.keys, args: { writeId: write.id } });
  }

  private async begin(shard: number, keys: string[]): Promise<StoreWrite> {
    // The lease is wall-clock time, as loads compare it with Date.now() (never a test clock).
    const now = Date.now();
    const write: StoreWrite = { id: randomUUID(), shard, keys };
    if (keys.length === 0) return write;
    await this.endUnanswered().catch(() => undefined);
    try {
      await this.mark(write, now);
    } catch (error) {
      // Redis may still run it (a paused Redis reads it when it wakes up): end it once it answers.
      this.unended.add(write);
      throw error;
    }
    this.active.add(write);
    return write;
  }

  /**
   * Runs a write's end. A batch that marked no account (every entry cost nothing: refusals, 503s)
   * still has its entries acknowledged: skipping that left them pending forever, read again on
   * every pass ahead of any new entry, so nothing settled after them was written.
   */
  private async end(write: StoreWrite, run: () => Promise<unknown>): Promise<void> {
    // The store's part is over (committed or not): a data loss from now on need not mark it again.
    this.active.delete(write);
    try {
      await run();
    } catch (error) {
      this.unended.add(write);
      throw error;
    }
  }

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

  /** Settlements in the streams not yet written to the store (all instances'). */
  async unwrittenSettlements(): Promise<number> {
    let total = 0;
    for (const shard of this.keys.shards) total += await this.redis.xlen(this.keys.stream(shard));
    return total;
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /**
   * Loads (force: replaces) a user's balance from the ledger. The epoch read first and checked by
   * the load script proves no store write of this user began or ended in between; while one is
   * under way the load waits for it.
   */
  private async loadUser(shard: number, userId: string, now: number, force: boolean, patienceMs = LOAD_PATIENCE_MS) {
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

  private async loadKey(shard: number, keyId: string, force: boolean, patienceMs = LOAD_PATIENCE_MS) {
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

  /** The counters hashes a batch of one shard's records moves (sorted: the same order everywhere). */
  private accountsOf(shard: number, records: SettlementRecord[]): string[] {
    const accounts = new Set<string>();
    for (const { event, charge } of records) {
      if (event.cost_nanos <= 0) continue;
      if (charge && event.user_id) accounts.add(this.keys.counters(shard, `u:${event.user_id}`));
      if (event.key_id) accounts.add(this.keys.counters(shard, `k:${event.key_id}`));
    }
    return [...accounts].sort();
  }
}

/** The admission decision a script reply stands for. */
function decision(check: AdmissionCheck, reply: AdmitReply): AdmissionDecision {
  const { hold, rate } = check;
  const lease = reply.leaseAfter >= 0 ? { lease: { amount: reply.leaseAfter, free: reply.freeAfter } } : {};
  const rateCheck: RateCheck | null = rate
    ? {
        allowed: reply.outcome !== 'rate_limited',
        refusedBy: reply.refusedBy,
        retryAfterMs: reply.retryAfterMs,
        requests: rate.limits.rpmLimit
          ? { limit: rate.limits.rpmLimit, remaining: reply.rpmRemaining, resetMs: reply.rpmResetMs }
          : null,
        tokens: rate.limits.tpmLimit
          ? { limit: rate.limits.tpmLimit, remaining: reply.tpmRemaining, resetMs: reply.tpmResetMs }
          : null,
      }
    : null;
  switch (reply.outcome) {
    case 'rate_limited':
      return { rate: rateCheck, hold: null };
    case 'lease_could_cover':
      return { rate: rateCheck, hold: 'insufficient_credits', leaseCouldCover: true, ...lease };
    case 'admitted':
      return { rate: rateCheck, hold: hold ? 'held' : null, ...lease };
    case 'insufficient_credits':
    case 'quota_exceeded':
    case 'credit_limit_exceeded':
      return { rate: rateCheck, hold: hold ? reply.outcome : null, ...lease };
    default:
      throw new Error(`unexpected admission reply: ${reply.outcome}`);
  }
}

/** How long a load on the request path waits for overlapping store writes before giving up (503). */
const LOAD_PATIENCE_MS = 10_000;

function pause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.min(2 + attempt, 20)));
}

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
import { ADMIT, HOT_BATCH, HOT_SCRIPTS, SETTLE, SHRINK_LEASE, type AdmitReply } from './redis-hot-scripts.js';
import { ScriptBatcher } from './redis-script-batch.js';
import { BALANCE, GENERATION } from './redis-load-scripts.js';
import { HotKeyLayout } from './redis-hot-keys.js';
import { RedisStoreWrites, type StoreWrite } from './redis-store-writes.js';
import { RedisAccountLoads } from './redis-account-loads.js';

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
  private readonly guardGeneration: boolean;
  /** Store writes: their marks, begun and ended (redis-store-writes.ts). */
  private readonly writes: RedisStoreWrites;
  /** Accounts loaded from the store and reconciled (redis-account-loads.ts). */
  private readonly loads: RedisAccountLoads;
  /** Admissions and settlements of one turn under load: one script call (redis-script-batch.ts). */
  readonly batcher: ScriptBatcher;
  /**
   * Order number of the calls that report a lease or a window (admissions, settlements, lease
   * shrinks): all leave through the batcher on one connection, so Redis runs them in this order
   * and a reply with a higher number shows a later state (outage-leases.ts, local-windows.ts).
   */
  private leaseSeq = 0;

  constructor(base: RedisClient, source: CounterSource, options: RedisHotCountersOptions = {}) {
    this.prefix = options.prefix ?? 'gateway:';
    this.keys = new HotKeyLayout(this.prefix, options.shards);
    this.guardGeneration = options.guardGeneration ?? false;
    // The installation's client (openRedis) already fails fast: its command timeout
    // (redis.command_timeout_ms), no offline queue, no resend after a reconnect, a background
    // reconnect; duplicate() keeps all of it. Its own: the commands of every request in one turn
    // of the event loop leave in one write (admissions and settlements of many requests).
    const redis = deriveRedis(base, { lazyConnect: false, batchWrites: true });
    // Errors are reported per command to the caller; this only keeps ioredis from crashing the process.
    redis.on('error', () => undefined);
    for (const script of HOT_SCRIPTS) script.install(redis);
    HOT_BATCH.install(redis);
    this.redis = redis;
    this.batcher = new ScriptBatcher(redis, HOT_BATCH);
    const writeLeaseMs = options.writeLeaseMs ?? 30_000;
    this.writes = new RedisStoreWrites(redis, this.keys, writeLeaseMs);
    this.loads = new RedisAccountLoads(redis, this.keys, source, writeLeaseMs, () => this.writes.endUnanswered());
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
      const seq = ++this.leaseSeq;
      const reply = await this.batcher.run(shard, ADMIT, {
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
          expiresAt: String(hold?.expiresAt ?? 0),
          trackUser: hold?.trackUser ?? false,
          trackKey: hold?.trackKey ?? false,
          monthlyQuota: check.monthlyQuota,
          lifetimeLimit: check.lifetimeLimit,
          month: monthOf(now),
          leaseId,
          leaseFloor: lease?.floor ?? 0,
          leaseShare: lease?.share ?? 0,
          leaseExpiresAt: String(lease?.expiresAt ?? 0),
          mayConvert: lease?.mayConvert ?? false,
          guardGeneration: this.guardGeneration,
          rpmPending: check.unsent?.rpm ?? 0,
          tpmPending: Math.max(0, Math.ceil(check.unsent?.tpm ?? 0)),
        },
      });
      switch (reply.outcome) {
        case 'data_lost':
          throw new RedisDataLostError();
        case 'load_user':
        case 'load_key':
          // First use of this account here (or after a reconcile): load it from the store, then decide.
          if (attempt >= 3) throw new Error('hot counters could not be loaded');
          if (reply.outcome === 'load_user' && userId !== null) await this.loads.loadUser(shard, userId, now, false);
          else await this.loads.loadKey(shard, check.keyId, false);
          continue;
        default:
          return { ...decision(check, reply), seq, windows: { rpmTat: reply.rpmTat, tpmTat: reply.tpmTat } };
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
  async settleFromLease(settlement: Settlement): Promise<SettleReply> {
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

  /** Releases the hold and moves nothing else (the record went to the store another way). */
  async releaseOnly(settlement: Settlement): Promise<void> {
    await this.settleScript({ ...settlement, charge: 0, keySpend: 0, tokens: null, leaseDebit: undefined }, null);
  }

  /** Takes an amount out of an instance's outage lease; resolves with the lease after. */
  async shrinkLease(userId: string, leaseId: string, amount: number): Promise<number> {
    return (await this.shrinkLeaseInOrder(userId, leaseId, amount)).after;
  }

  /** shrinkLease, with the call's order number (through the batcher, in order with admissions and settlements). */
  async shrinkLeaseInOrder(userId: string, leaseId: string, amount: number): Promise<{ after: number; seq: number }> {
    const shard = this.keys.shardOf(userId);
    const seq = ++this.leaseSeq;
    const after = await this.batcher.run(shard, SHRINK_LEASE, {
      keys: this.keys.user(shard, userId),
      args: { leaseId, amount },
    });
    return { after, seq };
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

  private async settleScript(settlement: Omit<Settlement, 'record'>, record: string | null): Promise<SettleReply> {
    const { hold, userId, keyId } = settlement;
    const shard = this.shardOfSettlement(userId, keyId);
    const local = settlement.localWindow;
    const seq = ++this.leaseSeq;
    settlement.onSent?.(seq);
    const { entryId, leaseAfter, rpmTat, tpmTat } = await this.batcher.run(shard, SETTLE, {
      keys: {
        rpmBucket: keyId && local?.rpm ? this.keys.bucket(shard, 'rpm', keyId) : this.keys.none(shard),
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
        // The admission put the hold only where it tracks it (the other accounts' keys were
        // placeholders): nothing to release elsewhere; nowhere for a hold admitted locally.
        holdOnUser: (hold?.trackUser ?? false) && settlement.holdNotInRedis !== true,
        holdOnKey: hold?.trackKey ?? false,
        rpmCharge: local?.rpm ?? 0,
        rpmLimit: local?.rpm ? (local.rpmLimit ?? 0) : 0,
        windowAt: local?.at ?? settlement.now,
      },
    });
    return { entryId, lease: leaseAfter, shard, seq, rpmTat, tpmTat };
  }

  async balance(userId: string, now: number): Promise<{ balance: number; held: number }> {
    const shard = this.keys.shardOf(userId);
    for (let attempt = 0; ; attempt++) {
      const { balance, held } = await BALANCE.run(this.redis, { keys: this.keys.user(shard, userId), args: { now } });
      if (balance !== null) return { balance, held };
      if (attempt >= 3) throw new Error('hot counters could not be loaded');
      await this.loads.loadUser(shard, userId, now, false);
    }
  }

  /** See RedisStoreWrites. */
  markAgain(shard: number, lost: SettlementRecord[]): Promise<StoreWrite> {
    return this.writes.markAgain(shard, lost);
  }

  endMarks(write: StoreWrite): Promise<void> {
    return this.writes.endMarks(write);
  }

  ledgerWrite(userIds: string[]): Promise<LedgerWriteTicket> {
    return this.writes.ledgerWrite(userIds);
  }

  beginWrite(shard: number, records: SettlementRecord[]): Promise<StoreWrite> {
    return this.writes.beginWrite(shard, records);
  }

  endWrite(
    group: string,
    entries: Array<{ id: string; record: SettlementRecord }>,
    committed: boolean,
    write: StoreWrite,
  ): Promise<void> {
    return this.writes.endWrite(group, entries, committed, write);
  }

  endUnanswered(): Promise<void> {
    return this.writes.endUnanswered();
  }

  /** Ends the store writes Redis did not answer, then replaces every loaded account from the store. */
  reconcile(now: number): Promise<CounterDrift[]> {
    return this.loads.reconcile(now);
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
}

/** A settlement's reply: its stream entry, the lease after (-1: not debited), and the windows' tat it wrote (-1: none). */
export interface SettleReply {
  entryId: string;
  lease: number;
  shard: number;
  /** The call's order number (leaseSeq). */
  seq: number;
  rpmTat: number;
  tpmTat: number;
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

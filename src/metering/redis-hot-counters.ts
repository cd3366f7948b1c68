import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RateCheck } from './rate-limit-window.js';
import type {
  AdmissionCheck,
  AdmissionDecision,
  CounterDrift,
  Hold,
  HoldOutcome,
  HotCounters,
  LedgerWriteTicket,
  Settlement,
} from './hot-counters.js';
import type { CounterSource } from './counter-source.js';
import { monthOf } from './key-spend.js';
import type { SettlementRecord } from './settlement-record.js';
import {
  ACK_SETTLEMENTS_SCRIPT,
  ADMIT_SCRIPT,
  BALANCE_SCRIPT,
  BEGIN_WRITE_SCRIPT,
  END_LEDGER_WRITE_SCRIPT,
  END_WRITES_SCRIPT,
  LOAD_KEY_SCRIPT,
  LOAD_USER_SCRIPT,
  PEEK_SCRIPT,
  SETTLE_SCRIPT,
  SHRINK_LEASE_SCRIPT,
  GENERATION_SCRIPT,
} from './redis-hot-scripts.js';

type Arg = string | number;
interface ScriptedRedis extends Redis {
  hotAdmit(...args: Arg[]): Promise<Arg[]>;
  hotSettle(...args: Arg[]): Promise<[string, number]>;
  hotShrinkLease(...args: Arg[]): Promise<number>;
  hotGeneration(...args: Arg[]): Promise<[string, string]>;
  hotBeginWrite(...args: Arg[]): Promise<number>;
  hotAckSettlements(...args: Arg[]): Promise<number>;
  hotEndLedgerWrite(...args: Arg[]): Promise<number>;
  hotEndWrites(...args: Arg[]): Promise<number>;
  hotPeek(...args: Arg[]): Promise<[number, string, number]>;
  hotLoadUser(...args: Arg[]): Promise<[number, string]>;
  hotLoadKey(...args: Arg[]): Promise<[number, string]>;
  hotBalance(...args: Arg[]): Promise<[string, string]>;
}

const HOLD_CODES: HoldOutcome[] = ['held', 'insufficient_credits', 'quota_exceeded', 'credit_limit_exceeded'];

/** A store write announced to Redis: its id ends it, once, on the accounts it marked. */
export interface StoreWrite {
  id: string;
  keys: string[];
}

export interface RedisHotCountersOptions {
  prefix?: string;
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
  readonly redis: ScriptedRedis;
  readonly prefix: string;
  readonly streamKey: string;
  private readonly writeLeaseMs: number;
  private readonly guardGeneration: boolean;
  /** Store writes this instance began whose end Redis did not confirm. */
  private readonly unended = new Set<StoreWrite>();

  constructor(
    base: Redis,
    private readonly source: CounterSource,
    options: RedisHotCountersOptions = {},
  ) {
    this.prefix = options.prefix ?? 'gateway:';
    this.streamKey = `${this.prefix}settlements`;
    this.writeLeaseMs = options.writeLeaseMs ?? 30_000;
    this.guardGeneration = options.guardGeneration ?? false;
    // The installation's client (openRedis) already fails fast: its command timeout
    // (redis.command_timeout_ms), no offline queue, no resend after a reconnect, a background
    // reconnect; duplicate() keeps all of it, so this connection sets none of its own.
    const redis = base.duplicate({ lazyConnect: false });
    // Errors are reported per command to the caller; this only keeps ioredis from crashing the process.
    redis.on('error', () => undefined);
    const scripts: Array<[string, number, string]> = [
      ['hotAdmit', 9, ADMIT_SCRIPT],
      ['hotSettle', 8, SETTLE_SCRIPT],
      ['hotPeek', 1, PEEK_SCRIPT],
      ['hotLoadUser', 2, LOAD_USER_SCRIPT],
      ['hotLoadKey', 2, LOAD_KEY_SCRIPT],
      ['hotBalance', 3, BALANCE_SCRIPT],
      ['hotShrinkLease', 3, SHRINK_LEASE_SCRIPT],
      ['hotGeneration', 2, GENERATION_SCRIPT],
    ];
    for (const [name, numberOfKeys, lua] of scripts) redis.defineCommand(name, { numberOfKeys, lua });
    // Variable key counts: the number of keys is the first argument.
    redis.defineCommand('hotBeginWrite', { lua: BEGIN_WRITE_SCRIPT });
    redis.defineCommand('hotAckSettlements', { lua: ACK_SETTLEMENTS_SCRIPT });
    redis.defineCommand('hotEndLedgerWrite', { lua: END_LEDGER_WRITE_SCRIPT });
    redis.defineCommand('hotEndWrites', { lua: END_WRITES_SCRIPT });
    this.redis = redis as ScriptedRedis;
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
    const { hold, rate, now } = check;
    const userId = hold?.userId ?? null;
    for (let attempt = 0; ; attempt++) {
      const reply = (
        await this.redis.hotAdmit(
          this.bucket('rpm', check.keyId),
          this.bucket('tpm', check.keyId),
          ...this.accountKeys(hold?.trackUser ? `u:${userId}` : null),
          ...this.accountKeys(hold?.trackKey ? `k:${check.keyId}` : null),
          this.generationKey(),
          now,
          Math.max(0, Math.ceil(rate?.tokens ?? 0)),
          rate?.limits.rpmLimit ?? 0,
          rate?.limits.tpmLimit ?? 0,
          hold?.id ?? '',
          hold?.amount ?? 0,
          hold?.expiresAt ?? 0,
          hold?.trackUser ? '1' : '0',
          hold?.trackKey ? '1' : '0',
          check.monthlyQuota ?? '',
          check.lifetimeLimit ?? '',
          monthOf(now),
          check.lease && hold?.trackUser ? check.lease.id : '',
          check.lease?.floor ?? 0,
          check.lease?.share ?? 0,
          check.lease?.expiresAt ?? 0,
          check.lease?.mayConvert ? '1' : '0',
          this.guardGeneration ? '1' : '0',
        )
      ).map(Number);
      const code = reply[0];
      if (code === -3) throw new RedisDataLostError();
      if (code === -1 || code === -2) {
        // First use of this account here (or after a reconcile): load it from the store, then decide.
        if (attempt >= 3) throw new Error('hot counters could not be loaded');
        if (code === -1) await this.loadUser(userId!, now, false);
        else await this.loadKey(check.keyId, false);
        continue;
      }
      const [, refused, retryAfterMs, rpmRemaining, rpmResetMs, tpmRemaining, tpmResetMs, lease, free] = reply;
      const leaseFigures = lease !== undefined && lease >= 0 ? { lease: { amount: lease, free } } : {};
      const rateCheck: RateCheck | null = rate
        ? {
            allowed: code !== 4,
            refusedBy: refused === 1 ? 'requests' : refused === 2 ? 'tokens' : null,
            retryAfterMs,
            requests: rate.limits.rpmLimit
              ? { limit: rate.limits.rpmLimit, remaining: rpmRemaining, resetMs: rpmResetMs }
              : null,
            tokens: rate.limits.tpmLimit
              ? { limit: rate.limits.tpmLimit, remaining: tpmRemaining, resetMs: tpmResetMs }
              : null,
          }
        : null;
      if (code === 4) return { rate: rateCheck, hold: null };
      if (code === 5) return { rate: rateCheck, hold: 'insufficient_credits', leaseCouldCover: true, ...leaseFigures };
      return { rate: rateCheck, hold: hold ? HOLD_CODES[code] : null, ...leaseFigures };
    }
  }

  async settle(settlement: Settlement): Promise<void> {
    await this.settleScript(settlement, JSON.stringify(settlement.record));
  }

  /** Settles; resolves with the stream entry id and the lease after when the settlement debited one (else -1). */
  async settleFromLease(settlement: Settlement): Promise<{ entryId: string; lease: number }> {
    return this.settleScript(settlement, JSON.stringify(settlement.record));
  }

  /**
   * This Redis's data generation (set if it has none) and the oldest unwritten settlement's entry
   * id; `fenceUntil` refuses holds until then (the caller found the data lost).
   */
  async generation(candidate: string, fenceUntil?: number): Promise<{ generation: string; oldest: string }> {
    const [generation, oldest] = await this.redis.hotGeneration(
      this.generationKey(),
      this.streamKey,
      candidate,
      fenceUntil ?? '',
    );
    return { generation, oldest };
  }

  private generationKey(): string {
    return `${this.prefix}hot:generation`;
  }

  /** Releases the hold and moves nothing else (the record went to the store another way). */
  async releaseOnly(settlement: Settlement): Promise<void> {
    await this.settleScript({ ...settlement, charge: 0, keySpend: 0, tokens: null, leaseDebit: undefined }, '');
  }

  /** Takes an amount out of an instance's outage lease; resolves with the lease after. */
  async shrinkLease(userId: string, leaseId: string, amount: number): Promise<number> {
    return Number(await this.redis.hotShrinkLease(...this.accountKeys(`u:${userId}`), leaseId, amount));
  }

  /**
   * Releases a hold and nothing else: one whose admission got no answer (it may have been taken
   * when Redis woke up). Releasing a hold that is not there changes nothing.
   */
  async releaseHold(hold: Hold, now: number): Promise<void> {
    await this.redis.hotSettle(
      this.none(),
      ...this.accountKeys(hold.trackUser ? `u:${hold.userId}` : null),
      ...this.accountKeys(hold.trackKey && hold.keyId ? `k:${hold.keyId}` : null),
      this.streamKey,
      now,
      hold.id,
      0,
      0,
      monthOf(now),
      0,
      0,
      '',
      hold.trackUser ? '1' : '0',
      hold.trackKey && hold.keyId ? '1' : '0',
    );
  }

  private async settleScript(settlement: Settlement, record: string): Promise<{ entryId: string; lease: number }> {
    const { hold, userId, keyId } = settlement;
    const [entryId, lease] = await this.redis.hotSettle(
      keyId ? this.bucket('tpm', keyId) : this.none(),
      ...this.accountKeys(userId ? `u:${userId}` : null),
      ...this.accountKeys(keyId ? `k:${keyId}` : null),
      this.streamKey,
      settlement.now,
      hold?.id ?? '',
      settlement.charge,
      settlement.keySpend,
      settlement.month,
      settlement.tokens?.delta ?? 0,
      settlement.tokens?.limits.tpmLimit ?? 0,
      record,
      userId ? '1' : '0',
      keyId ? '1' : '0',
      settlement.leaseDebit?.id ?? '',
      settlement.leaseDebit?.amount ?? 0,
    );
    return { entryId, lease: Number(lease) };
  }

  async balance(userId: string, now: number): Promise<{ balance: number; held: number }> {
    for (let attempt = 0; ; attempt++) {
      const [balance, held] = await this.redis.hotBalance(...this.accountKeys(`u:${userId}`), now);
      if (balance !== '') return { balance: Number(balance), held: Number(held) };
      if (attempt >= 3) throw new Error('hot counters could not be loaded');
      await this.loadUser(userId, now, false);
    }
  }

  async ledgerWrite(userIds: string[]): Promise<LedgerWriteTicket> {
    const write = await this.begin(userIds.map((userId) => this.account(`u:${userId}`)));
    return {
      done: async (moves) => {
        const amounts = userIds.map((userId) =>
          moves.filter((move) => move.userId === userId).reduce((sum, move) => sum + move.amount, 0),
        );
        await this.end(write, () =>
          this.redis.hotEndLedgerWrite(write.keys.length, ...write.keys, write.id, ...amounts),
        );
      },
    };
  }

  /** A settlement batch is about to be written to the store; pass what it returns to endWrite. */
  async beginWrite(records: SettlementRecord[]): Promise<StoreWrite> {
    return this.begin(this.accountsOf(records));
  }

  /** The batch is over: acknowledged stream entries (when committed) stop counting as pending. */
  async endWrite(
    group: string,
    entries: Array<{ id: string; record: SettlementRecord }>,
    committed: boolean,
    write: StoreWrite,
  ) {
    // The accounts marked at the batch's begin: those of these entries.
    const keys = write.keys;
    const index = new Map(keys.map((key, position) => [key, position + 2]));
    const args: Arg[] = [];
    if (committed) {
      for (const { id, record } of entries) {
        const { event, charge } = record;
        const priced = event.cost_nanos > 0;
        const user = priced && charge && event.user_id ? index.get(this.account(`u:${event.user_id}`))! : 0;
        const key = priced && event.key_id ? index.get(this.account(`k:${event.key_id}`))! : 0;
        args.push(id, user, event.cost_nanos, key, event.cost_nanos, monthOf(event.created_at));
      }
    }
    await this.end(write, () =>
      this.redis.hotAckSettlements(
        keys.length + 1,
        this.streamKey,
        ...keys,
        group,
        committed ? entries.length : 0,
        write.id,
        ...args,
      ),
    );
  }

  /**
   * Ends the store writes whose end (or begin) got no answer from Redis: until then their marks
   * keep the accounts' loads waiting. Called before each batch and before a reconcile.
   */
  async endUnanswered(): Promise<void> {
    for (const write of [...this.unended]) {
      if (write.keys.length > 0) await this.redis.hotEndWrites(write.keys.length, ...write.keys, write.id);
      this.unended.delete(write);
    }
  }

  private async begin(keys: string[]): Promise<StoreWrite> {
    // The lease is wall-clock time, as loads compare it with Date.now() (never a test clock).
    const now = Date.now();
    const write: StoreWrite = { id: randomUUID(), keys };
    if (keys.length === 0) return write;
    await this.endUnanswered().catch(() => undefined);
    try {
      await this.redis.hotBeginWrite(keys.length, ...keys, now, this.writeLeaseMs, write.id);
    } catch (error) {
      // Redis may still run it (a paused Redis reads it when it wakes up): end it once it answers.
      this.unended.add(write);
      throw error;
    }
    return write;
  }

  /** Runs a write's end (always: a batch that marked no account still acknowledges its entries). */
  private async end(write: StoreWrite, run: () => Promise<unknown>): Promise<void> {
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
    const members = await this.redis.smembers(this.loadedSet());
    for (const member of members) {
      const id = member.slice(2);
      // A store write left by a killed instance keeps loads waiting until its lease runs out: wait it out.
      const patience = this.writeLeaseMs + 5_000;
      const previous = member.startsWith('u:')
        ? await this.loadUser(id, now, true, patience)
        : await this.loadKey(id, true, patience);
      if (previous.replaced !== previous.expected)
        drift.push({
          entity: `${member.startsWith('u:') ? 'user' : 'key'} ${id}`,
          expected: previous.expected,
          actual: previous.replaced,
        });
    }
    return drift;
  }

  /** Settlements in the stream not yet written to the store (all instances'). */
  async unwrittenSettlements(): Promise<number> {
    return this.redis.xlen(this.streamKey);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /**
   * Loads (force: replaces) a user's balance from the ledger. The epoch read first and checked by
   * the load script proves no store write of this user began or ended in between; while one is
   * under way the load waits for it.
   */
  private async loadUser(userId: string, now: number, force: boolean, patienceMs = LOAD_PATIENCE_MS) {
    const key = this.account(`u:${userId}`);
    const deadline = Date.now() + patienceMs;
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      const [loaded, epoch, busy] = await this.redis.hotPeek(key, Date.now(), 'bal');
      if (Number(loaded) === 1 && !force) return { replaced: null, expected: 0 };
      if (Number(busy) === 1) {
        // The write under way may be one of ours whose end Redis did not answer.
        await this.endUnanswered().catch(() => undefined);
        await pause(attempt);
        continue;
      }
      const stored = await this.source.balance(userId);
      const [done, previous] = await this.redis.hotLoadUser(
        key,
        this.loadedSet(),
        epoch,
        stored.balance,
        Date.now(),
        `u:${userId}`,
        force ? '1' : '0',
      );
      if (Number(done) === 1) {
        const [balance] = await this.redis.hotBalance(...this.accountKeys(`u:${userId}`), now);
        return { replaced: previous === '' ? null : Number(previous), expected: Number(balance) };
      }
      await pause(attempt);
    }
    throw new Error(
      `the balance of user ${userId} could not be loaded: store writes kept overlapping for ${Math.round(patienceMs / 1000)} s`,
    );
  }

  private async loadKey(keyId: string, force: boolean, patienceMs = LOAD_PATIENCE_MS) {
    const key = this.account(`k:${keyId}`);
    const deadline = Date.now() + patienceMs;
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      const [loaded, epoch, busy] = await this.redis.hotPeek(key, Date.now(), 'tot');
      if (Number(loaded) === 1 && !force) return { replaced: null, expected: 0 };
      if (Number(busy) === 1) {
        // The write under way may be one of ours whose end Redis did not answer.
        await this.endUnanswered().catch(() => undefined);
        await pause(attempt);
        continue;
      }
      const stored = await this.source.keySpend(keyId);
      const [done, previous] = await this.redis.hotLoadKey(
        key,
        this.loadedSet(),
        epoch,
        stored.month ?? '',
        stored.monthSpend,
        stored.totalSpend,
        Date.now(),
        `k:${keyId}`,
        force ? '1' : '0',
      );
      if (Number(done) === 1) {
        const total = await this.redis.hget(key, 'tot');
        return { replaced: previous === '' ? null : Number(previous), expected: Number(total) };
      }
      await pause(attempt);
    }
    throw new Error(
      `the spend of key ${keyId} could not be loaded: store writes kept overlapping for ${Math.round(patienceMs / 1000)} s`,
    );
  }

  private accountsOf(records: SettlementRecord[]): string[] {
    const keys = new Set<string>();
    for (const { event, charge } of records) {
      if (event.cost_nanos <= 0) continue;
      if (charge && event.user_id) keys.add(this.account(`u:${event.user_id}`));
      if (event.key_id) keys.add(this.account(`k:${event.key_id}`));
    }
    return [...keys].sort();
  }

  /** Counters hash, holds hash and expiry set of an account (placeholders when there is none). */
  private accountKeys(account: string | null): [string, string, string] {
    if (!account) return [this.none(), this.none(), this.none()];
    const key = this.account(account);
    return [key, `${key}:holds`, `${key}:expiry`];
  }

  private account(account: string): string {
    return `${this.prefix}hot:${account}`;
  }

  private loadedSet(): string {
    return `${this.prefix}hot:loaded`;
  }

  private none(): string {
    return `${this.prefix}hot:none`;
  }

  private bucket(kind: 'rpm' | 'tpm', keyId: string): string {
    return `${this.prefix}limit:${kind}:${keyId}`;
  }
}

/** How long a load on the request path waits for overlapping store writes before giving up (503). */
const LOAD_PATIENCE_MS = 10_000;

function pause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.min(2 + attempt, 20)));
}

import { hostname } from 'node:os';
import type { RedisClient } from '../store/redis-client.js';
import type { AdmissionCheck, AdmissionDecision, Hold, Settlement } from './hot-counters.js';
import { MemoryHotCounters } from './memory-hot-counters.js';
import { RedisDataLostError, RedisHotCounters } from './redis-hot-counters.js';
import type { StoreWrite } from './redis-store-writes.js';
import { OutageLeases } from './outage-leases.js';
import { LocalWindows } from './local-windows.js';
import { SentSettlements } from './sent-settlements.js';
import { StreamSettlementWriter } from './stream-settlement-writer.js';
import { LimitsUnavailableError } from './limits-unavailable.js';
import { mayHaveReachedRedis, UnansweredHolds } from './unanswered-holds.js';
import { UsageWriter } from './usage-writer.js';
import { monthOf } from './key-spend.js';
import type { MeteringBackend, MeteringBackendContext } from './metering-backend.js';

/** After Redis lost its data, holds are refused this long while every instance rewrites what it had sent. */
const DATA_LOSS_FENCE_MS = 3000;

export interface RedisMeteringOptions {
  /** Prefix of every Redis key (tests use a random one). */
  prefix?: string;
  /** How long one read of the settlement stream waits (tests shorten it). */
  streamBlockMs?: number;
}

/**
 * Metering shared by every instance through Redis: admission and settlement are one script each;
 * settlements reach the store through the Redis stream. This class also owns what happens when
 * Redis does not answer: rate windows per instance, credit only from this instance's outage
 * lease (fail-open) or 503 (fail-closed); settlements Redis refused are written to the store from
 * here and their holds released once it is back; holds whose admission got no answer are
 * released in the background; a Redis that lost its data is detected and what this instance had
 * sent to its stream is written again.
 */
export class RedisMeteringBackend implements MeteringBackend {
  readonly counters: RedisHotCounters;
  /** Writes only the settlements Redis refused (and the ones a data loss took from the stream). */
  readonly writer: UsageWriter;
  readonly ledgerIdentity: string;
  /** Holds whose admission Redis did not answer: released in the background once it is back. */
  private readonly unanswered: UnansweredHolds;
  private readonly streamWriter: StreamSettlementWriter;
  /** Rate windows of this instance, used while Redis is down in fail-open mode. */
  private readonly local: MemoryHotCounters;
  /** Fail-open: what this instance may spend of each user's balance while Redis does not answer. */
  private readonly leases: OutageLeases | null;
  /** Local admission: the keys' rate windows as Redis last reported them plus this instance's unsent units. */
  private readonly windows: LocalWindows;
  /** limits.local_admission, with a lease to admit from. */
  private readonly localAdmission: boolean;
  /** Requests admitted locally and round trips made (tests, measurements). */
  readonly admissions = { local: 0, redis: 0 };
  /** Holds admitted locally (never sent to Redis): their settlements release none there. */
  private readonly localHolds = new WeakSet<Hold>();
  /** Per shard: records sent to its stream and not yet seen written (written here if Redis loses them). */
  private readonly sent = new Map<number, SentSettlements>();
  /** Settlements Redis refused (down): written to the store directly; their holds are released when it is back. */
  private missedInRedis: Settlement[] = [];
  private repairTimer: NodeJS.Timeout | undefined;
  private repairing = false;
  private checkingGeneration = false;

  constructor(
    redis: RedisClient,
    private readonly context: MeteringBackendContext,
    options: RedisMeteringOptions = {},
  ) {
    const { settings, source, clock } = context;
    this.counters = new RedisHotCounters(redis, source, { prefix: options.prefix, guardGeneration: true });
    this.ledgerIdentity = `redis:${this.counters.prefix}`;
    for (const shard of this.counters.keys.shards) this.sent.set(shard, new SentSettlements());
    const counters = this.counters;
    this.unanswered = new UnansweredHolds((hold) => counters.releaseHold(hold, clock.now()), clock);
    this.local = new MemoryHotCounters(source);
    this.writer = new UsageWriter(context.store, context.logger, clock, null, context.writerOptions);
    const instanceId = `${hostname()}:${process.pid}:${context.ids.next('')}`;
    this.leases =
      settings.redisFailureMode === 'open' && settings.outageLeaseFraction > 0
        ? new OutageLeases(instanceId, {
            share: Math.max(2, Math.round(1 / settings.outageLeaseFraction)),
            ttlMs: settings.holdTtlMs,
          })
        : null;
    this.localAdmission = settings.localAdmission && this.leases !== null;
    this.windows = new LocalWindows(settings.holdTtlMs);
    this.streamWriter = new StreamSettlementWriter(
      redis,
      this.counters,
      context.store,
      context.logger,
      clock,
      instanceId,
      {
        claimIdleMs: settings.settlementClaimMs,
        blockMs: options.streamBlockMs,
      },
    );
  }

  async start(): Promise<void> {
    const { logger, settings } = this.context;
    if (!(await this.counters.ready())) {
      logger.warn(
        `Redis is not reachable yet; ${settings.redisFailureMode === 'open' ? "rate limits run per instance and credit only from this instance's outage lease (fail-open)" : 'requests with limits or credits are refused (fail-closed)'} until it is`,
      );
    }
    await this.writer.start();
    // The data generation exists before the first admission (holds are refused without one).
    await this.checkGeneration();
    this.streamWriter.start();
    void this.startupCheck();
    this.repairTimer = setInterval(() => {
      void this.repairMissed();
      void this.returnIdleLeases();
      void this.checkGeneration();
    }, 1000);
    this.repairTimer.unref();
  }

  async drain(): Promise<void> {
    clearInterval(this.repairTimer);
    this.unanswered.close();
    await this.writer.stop();
    await this.streamWriter.stop();
    await this.repairMissed();
    await this.unanswered.sweep();
    await this.returnLeases(this.leases?.unused() ?? []);
  }

  async close(): Promise<void> {
    await this.counters.close();
    await this.local.close();
  }

  async flush(): Promise<void> {
    await this.writer.flush();
    // With Redis down the stream cannot be read: its entries are written once it is back.
    await this.streamWriter.flush().catch((error) => this.context.warn(error, 'reading the settlement stream'));
  }

  get unansweredHolds(): number {
    return this.unanswered.size;
  }

  settlementStalled(limitMs: number): string | null {
    return this.streamWriter.stalled(limitMs);
  }

  get backlog(): number {
    return this.writer.pending + this.streamWriter.streamLength;
  }

  /** The shared counters checked against the ledger when an instance starts (in the background). */
  private async startupCheck(): Promise<void> {
    const { logger, clock } = this.context;
    try {
      const drift = await this.counters.reconcile(clock.now());
      if (drift.length > 0)
        logger.warn(
          { drift: drift.slice(0, 20) },
          `hot counters checked against the ledger at start-up: ${drift.length} had drifted and were rebuilt`,
        );
    } catch (error) {
      logger.warn({ err: error }, 'could not check the hot counters against the ledger at start-up');
    }
  }

  /**
   * Local admission (issue 31): Redis healthy, a request that holds credit only on the user's
   * balance (no key quota or credit limit: those are per key across instances and no lease backs
   * them) is admitted without a round trip when this instance's lease on the user has an unspent
   * part covering the hold and its key's rate windows, as Redis last reported them plus what this
   * instance admitted and has not yet written, have at least half their room left. The hold is
   * spent from the lease (which counts in Redis's `held`, so no other instance can spend it); the
   * settlement (the request's one round trip, which the answer's end waits for as always) debits
   * the lease by the charge and writes the window units. Else the round trip decides, as before.
   */
  private admitLocally(check: AdmissionCheck): AdmissionDecision | null {
    const { hold, rate, now } = check;
    const leases = this.leases;
    if (!this.localAdmission || !leases || !hold || !hold.trackUser || hold.trackKey) return null;
    if (!leases.admitLocally(hold.userId, hold.amount, now)) return null;
    let window = null;
    if (rate) {
      window = this.windows.admit(check.keyId, rate.limits, Math.max(0, Math.ceil(rate.tokens)), now);
      if (!window) {
        // Given back at once: nothing was sent, nothing charged.
        leases.settled(hold.userId, hold.amount, 0);
        return null;
      }
    }
    this.admissions.local++;
    this.localHolds.add(hold);
    return { rate: window?.check ?? null, hold: 'held', fromLease: true, localWindow: window?.charge };
  }

  async admit(check: AdmissionCheck): Promise<AdmissionDecision> {
    const local = this.admitLocally(check);
    if (local) return local;
    this.admissions.redis++;
    if (check.rate && this.localAdmission) check = { ...check, unsent: this.windows.unsent(check.keyId, check.now) };
    const { hold } = check;
    // This instance's outage lease on the user is kept topped up by the same script.
    const leased =
      hold?.trackUser && hold.userId && this.leases
        ? { leases: this.leases, userId: hold.userId, amount: hold.amount }
        : null;
    let lease = leased?.leases.request(leased.userId, leased.amount, check.now);
    try {
      for (let attempt = 0; ; attempt++) {
        leased?.leases.sending(leased.userId, lease);
        const decision = await this.counters.admit({ ...check, lease });
        leased?.leases.answered(
          leased.userId,
          lease,
          decision.lease && { ...decision.lease, seq: decision.seq },
          this.context.clock.now(),
        );
        if (decision.windows && decision.seq !== undefined && this.localAdmission)
          this.windows.reported(check.keyId, decision.seq, decision.windows.rpmTat, decision.windows.tpmTat);
        // Short of free balance, but this instance's own lease covers it: asked again, allowed to take from it.
        if (!decision.leaseCouldCover || attempt > 0 || !leased) return decision;
        lease = leased.leases.request(leased.userId, leased.amount, check.now, true);
      }
    } catch (error) {
      if (error instanceof RedisDataLostError) {
        // Answered: Redis lost its data; the leases were lost with it, so nothing is spent from them.
        this.leases?.lost();
        throw new LimitsUnavailableError(error);
      }
      // Sent and unanswered (Redis paused): it may still take the hold when it wakes up, and no
      // settlement would release it (this request is served from the lease, or refused).
      const reached = mayHaveReachedRedis(error);
      if (hold && reached) this.unanswered.add(hold);
      leased?.leases.unanswered(leased.userId, lease, reached);
      this.context.warn(error, 'admission');
      if (this.context.settings.redisFailureMode === 'closed') throw new LimitsUnavailableError(error);
      return this.admitWithoutRedis(check).catch((storeError) => {
        throw storeError instanceof LimitsUnavailableError ? storeError : new LimitsUnavailableError(storeError);
      });
    }
  }

  /**
   * Redis does not answer (fail-open): rate windows are kept per instance, but money is not: a
   * credit hold is admitted only from this instance's outage lease (set aside in Redis before the
   * fault), and refused with 503 beyond it, so what every instance spends meanwhile stays within
   * the balance. A key's quota and credit limit are checked against its stored spend (a key may
   * overshoot by what is in flight).
   */
  private async admitWithoutRedis(check: AdmissionCheck): Promise<AdmissionDecision> {
    const local = await this.local.admit({ ...check, hold: null });
    if (!check.hold || (local.rate && !local.rate.allowed)) return local;
    const { hold, now } = check;
    if (hold.trackKey && hold.keyId) {
      const spend = await this.context.source.keySpend(hold.keyId);
      const month = spend.month === monthOf(now) ? spend.monthSpend : 0;
      if (check.monthlyQuota !== null && check.monthlyQuota - month <= 0) return { ...local, hold: 'quota_exceeded' };
      if (check.lifetimeLimit !== null && check.lifetimeLimit - spend.totalSpend <= 0)
        return { ...local, hold: 'credit_limit_exceeded' };
    }
    if (!hold.trackUser) return { ...local, hold: 'held' };
    if (!this.leases?.spend(hold.userId, hold.amount, now)) {
      throw new LimitsUnavailableError(
        new Error('Redis does not answer and this instance has no outage lease left for the account'),
      );
    }
    return { ...local, hold: 'held', fromLease: true };
  }

  settle(settlement: Settlement, fromLease: boolean): void {
    const { hold } = settlement;
    if (fromLease && hold && this.leases) {
      // Admitted from the lease while Redis was away: the hold was never in Redis; the charge
      // leaves the lease when Redis takes the settlement (or when the repair after the fault runs).
      this.leases.settled(hold.userId, hold.amount, settlement.charge);
      if (settlement.charge > 0) settlement.leaseDebit = { id: this.leases.id, amount: settlement.charge };
    }
    if (hold && this.localHolds.has(hold)) settlement.holdNotInRedis = true;
    const local = settlement.localWindow;
    if (local) settlement.onSent = (seq) => this.windows.sent(local, seq);
    this.counters.settleFromLease(settlement).then(
      ({ entryId, lease, shard, seq, rpmTat, tpmTat }) => {
        // The answer's end first (issue 31): what follows is this instance's bookkeeping, which
        // runs in the same callback, before any other request's code (no figure it keeps is read
        // in between); the answer no longer waits for it.
        this.context.releaseEnds([settlement.record]);
        this.sent.get(shard)?.add(entryId, settlement.record);
        if (settlement.leaseDebit && settlement.userId)
          this.leases?.debited(settlement.userId, settlement.leaseDebit.amount, lease, seq);
        if (settlement.keyId && this.localAdmission) this.windows.reported(settlement.keyId, seq, rpmTat, tpmTat);
      },
      (error) => {
        if (local) this.windows.unanswered(local);
        // Redis refused the settlement: the record goes to the store from here, and the counters
        // are repaired (hold released, accounts reloaded from the ledger) once Redis answers again.
        this.context.warn(error, 'settlement');
        this.writer.enqueue(settlement.record);
        this.missedInRedis.push(settlement);
      },
    );
  }

  private async repairMissed(): Promise<void> {
    if (this.repairing || this.missedInRedis.length === 0) return;
    this.repairing = true;
    try {
      await this.writer.flush();
      const missed = this.missedInRedis;
      this.missedInRedis = [];
      try {
        // Reloaded from the ledger (which has these charges now) before their holds and lease
        // amounts are let go: in between, the money counts twice, never not at all.
        const drift = await this.counters.reconcile(this.context.clock.now());
        while (missed.length > 0) {
          const settlement = missed[0];
          const debit = settlement.leaseDebit;
          if (debit && settlement.userId) {
            const { after, seq } = await this.counters.shrinkLeaseInOrder(settlement.userId, debit.id, debit.amount);
            this.leases?.debited(settlement.userId, debit.amount, after, seq);
          } else await this.counters.releaseOnly(settlement);
          missed.shift();
        }
        this.context.logger.info(
          { settlements: missed.length, drifted: drift.length },
          `Redis is back: released ${missed.length} holds of settlements written directly to the store and reloaded the counters`,
        );
      } catch (error) {
        this.missedInRedis.unshift(...missed);
        throw error;
      }
    } catch {
      // Still down: tried again in a second.
    } finally {
      this.repairing = false;
    }
  }

  /**
   * Once a second, per shard: has Redis lost its data (another generation)? Then the records this
   * instance had sent to the lost stream are written to the store from here (answers already sent
   * must be recorded and charged); else the ones Redis has written are let go. On a cluster a node
   * may lose its shards while the others keep theirs: each shard is checked and fenced on its own.
   */
  private async checkGeneration(): Promise<void> {
    if (this.checkingGeneration) return;
    this.checkingGeneration = true;
    try {
      // All shards at once: the sooner a loss is seen, the sooner what was sent is written again.
      await Promise.all(
        [...this.sent].map(([shard, sent]) =>
          this.checkShardGeneration(shard, sent).catch(() => {
            // Redis down: checked again in a second.
          }),
        ),
      );
    } finally {
      this.checkingGeneration = false;
    }
  }

  private async checkShardGeneration(shard: number, sent: SentSettlements): Promise<void> {
    const { logger, clock, ids } = this.context;
    const askedAt = sent.mark();
    const fenceIfNew = sent.knowsGeneration ? clock.now() + DATA_LOSS_FENCE_MS : undefined;
    const { generation, oldest } = await this.counters.generation(shard, ids.next('gen_'), undefined, fenceIfNew);
    if (!sent.isNew(generation)) {
      sent.checked(generation, oldest, askedAt);
      return;
    }
    // Redis lost its data: holds wait (503) for a few seconds while every instance writes the
    // settlements it had sent to the lost stream, so that balances are loaded with them.
    this.leases?.lost();
    await this.counters.generation(shard, '', clock.now() + DATA_LOSS_FENCE_MS);
    const lost = sent.checked(generation, oldest);
    logger.error(
      { settlements: lost.length, shard },
      `Redis lost its data (restarted without persistence?): credit holds wait ${DATA_LOSS_FENCE_MS / 1000} s while the instances write again the settlements they had sent to it; run Redis with appendonly yes`,
    );
    // The fence bounds the wait by time; the marks make loads wait for the writes themselves
    // (a store write slowed by a store outage can outlast the fence).
    const marks = await this.counters.markAgain(shard, lost).catch((error) => {
      this.context.warn(error, 'marking the store writes under way after a data loss');
      return null;
    });
    for (const record of lost) this.writer.enqueue(record);
    void this.endMarksOnceWritten(marks);
    if (lost.length === 0) return;
    logger.error(
      { settlements: lost.length, shard },
      `Redis lost its data (restarted without persistence?): writing the ${lost.length} settlements this instance had sent to its stream to the store directly; run Redis with appendonly yes`,
    );
  }

  /** Ends the marks of records written directly once they are in the store (else their lease ends them). */
  private async endMarksOnceWritten(marks: StoreWrite | null): Promise<void> {
    if (!marks || marks.keys.length === 0) return;
    for (let attempt = 0; attempt < 30; attempt++) {
      try {
        await this.writer.flush();
        await this.counters.endMarks(marks);
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 1000).unref());
      }
    }
  }

  private async returnIdleLeases(): Promise<void> {
    if (this.leases) await this.returnLeases(this.leases.idle(this.context.clock.now()));
  }

  /** Gives leases back to the balance (idle ones, or all unused ones at shutdown); Redis down: kept. */
  private async returnLeases(userIds: string[]): Promise<void> {
    const leases = this.leases;
    if (!leases) return;
    for (const userId of userIds) {
      leases.shrinkStarted(userId);
      let shrunk: { after: number; seq: number } | null = null;
      try {
        shrunk = await this.counters.shrinkLeaseInOrder(userId, leases.id, leases.of(userId)?.amount ?? 0);
      } catch {
        return;
      } finally {
        leases.shrinkEnded(userId, shrunk?.after ?? null, shrunk?.seq);
      }
    }
  }
}

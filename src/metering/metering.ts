import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { GatewayConfig, Pricing } from '../config/gateway-config.js';
import type { Store } from '../store/database.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import type { CompletionObserver, CompletionOutcome, PricedOutcome } from '../routing/completion-outcome.js';
import type { ModelDirectory } from '../routing/model-directory.js';
import type { AdmissionInput, RequestAdmission } from '../gateway/request-admission.js';
import type { AnswerPricer } from '../gateway/engine/answer-cost.js';
import type { ChatCompletionRequest } from '../shared/openai-types.js';
import { getBalance } from '../credits/credit-ledger.js';
import { watchLedgerWithCounters } from './ledger-counters-watch.js';
import { estimatePromptSize, estimatePromptTokens } from './estimate-tokens.js';
import type { AdmissionCheck, AdmissionDecision, CounterDrift, Hold, HotCounters, Settlement } from './hot-counters.js';
import { MemoryHotCounters } from './memory-hot-counters.js';
import { RedisDataLostError, RedisHotCounters } from './redis-hot-counters.js';
import { storeCounterSource, type CounterSource } from './counter-source.js';
import { storeHeld } from '../credits/store-holds.js';
import { OutageLeases } from './outage-leases.js';
import { SentSettlements } from './sent-settlements.js';
import { StreamSettlementWriter } from './stream-settlement-writer.js';
import { LimitsUnavailableError } from './limits-unavailable.js';
import { mayHaveReachedRedis, UnansweredHolds } from './unanswered-holds.js';
import { readMeteringSettings, type MeteringSettings } from './metering-settings.js';
import { buildUsageEvent, priceOutcome } from './usage-event.js';
import { UsageWriter, type UsageWriterOptions } from './usage-writer.js';
import type { UsageEventsTable } from './metering-schema.js';
import { monthOf } from './key-spend.js';
import { deferResponseEnd } from './defer-response-end.js';
import type { SettlementRecord } from './settlement-record.js';
import {
  holdAmount,
  holdRefusal,
  keyLimitsOf,
  keyQuotaNanos,
  rateLimitError,
  rateLimitHeaders,
  type MeteredRequest,
} from './metering-admission.js';

/** Beside the SQLite file; for PostgreSQL in ./data (limits.settlement_spill_file overrides). */
function defaultSpillFile(store: Store): string {
  return store.dialect === 'sqlite' && store.description !== 'sqlite::memory:'
    ? `${store.description.slice('sqlite:'.length)}-settlement-spill.jsonl`
    : resolve('data', 'settlement-spill.jsonl');
}

/** Beside a SQLite file; none for PostgreSQL or an in-memory database (nothing there outlives the process). */
function defaultJournalFile(store: Store): string | undefined {
  return store.dialect === 'sqlite' && store.description !== 'sqlite::memory:'
    ? `${store.description.slice('sqlite:'.length)}-settlement-journal.jsonl`
    : undefined;
}

/** After Redis lost its data, holds are refused this long while every instance rewrites what it had sent. */
const DATA_LOSS_FENCE_MS = 3000;

/** Readiness turns not-ready when no settlement pass has completed for this long. */
const SETTLEMENT_STALL_MS = 10_000;

/** A response's end never waits longer than this for its settlement to be durable. */
const END_WAIT_MS = 5000;

export type MeteringOptions = UsageWriterOptions & {
  /** Redis only: how long one read of the settlement stream waits (tests shorten it). */
  streamBlockMs?: number;
};

export interface MeteringDeps {
  config: GatewayConfig;
  store: Store;
  logger: Logger;
  clock: Clock;
  ids: IdGenerator;
  directory: ModelDirectory;
  /** Hot counters shared by every instance; without it they are kept per instance, in memory. */
  redis?: Redis;
  /** Prefix of every Redis key (tests use a random one). */
  redisKeyPrefix?: string;
  options?: MeteringOptions;
  /** Sees every usage record as it is settled (metrics count tokens and cost from it). */
  onUsage?: (event: UsageEventsTable) => void;
}

/**
 * Metering for the chat path: admission before the request (rate windows, key quotas, credit
 * hold: one atomic step in the hot counters) and, through the CompletionObserver, settlement (the
 * hold becomes the charge in the counters at once; the usage event and ledger charge go to the
 * store behind the request, through the Redis settlement stream or the in-process writer).
 */
export class Metering implements RequestAdmission, CompletionObserver, AnswerPricer {
  readonly settings: MeteringSettings;
  readonly counters: HotCounters;
  /** The store writer of this instance (without Redis: every settlement; with it: those Redis refused). */
  readonly writer: UsageWriter;
  private readonly redisCounters: RedisHotCounters | undefined;
  /** Holds whose admission Redis did not answer: released in the background once it is back. */
  private readonly unanswered: UnansweredHolds | undefined;
  private readonly streamWriter: StreamSettlementWriter | undefined;
  /** Rate windows of this instance, used while Redis is down in fail-open mode. */
  private readonly local: MemoryHotCounters | undefined;
  /** Redis, fail-open: what this instance may spend of each user's balance while Redis does not answer. */
  private readonly leases: OutageLeases | undefined;
  /** Records sent to the Redis stream and not yet seen written (written here if Redis loses them). */
  private readonly sent: SentSettlements | undefined;
  private readonly requests = new WeakMap<CompletionOutcome, MeteredRequest>();
  private readonly source: CounterSource;
  /** Settlements Redis refused (down): written to the store directly; their holds are released when it is back. */
  private missedInRedis: Settlement[] = [];
  private readonly unwatchLedger: () => void;
  private repairTimer: NodeJS.Timeout | undefined;
  private lastWarning = 0;
  /** Responses whose end waits for their record to be written by this instance's writer. */
  private readonly endsAwaitingWrite = new Map<string, () => void>();

  constructor(private readonly deps: MeteringDeps) {
    this.settings = readMeteringSettings(deps.config);
    const source = storeCounterSource(deps.store);
    this.source = source;
    if (deps.redis) {
      this.redisCounters = new RedisHotCounters(deps.redis, source, {
        prefix: deps.redisKeyPrefix,
        guardGeneration: true,
      });
      this.counters = this.redisCounters;
      const counters = this.redisCounters;
      this.unanswered = new UnansweredHolds((hold) => counters.releaseHold(hold, deps.clock.now()), deps.clock);
      this.local = new MemoryHotCounters(source);
      this.sent = new SentSettlements();
      this.writer = new UsageWriter(deps.store, deps.logger, deps.clock, null, this.writerOptions());
      const instanceId = `${hostname()}:${process.pid}:${deps.ids.next('')}`;
      if (this.settings.redisFailureMode === 'open' && this.settings.outageLeaseFraction > 0)
        this.leases = new OutageLeases(instanceId, {
          share: Math.max(2, Math.round(1 / this.settings.outageLeaseFraction)),
          ttlMs: this.settings.holdTtlMs,
        });
      this.streamWriter = new StreamSettlementWriter(
        deps.redis,
        this.redisCounters,
        deps.store,
        deps.logger,
        deps.clock,
        instanceId,
        { claimIdleMs: this.settings.settlementClaimMs, blockMs: deps.options?.streamBlockMs },
      );
    } else {
      const memory = new MemoryHotCounters(source);
      this.counters = memory;
      // Without Redis the store is the only durable record: a journal beside a SQLite file lets
      // answers end after one append instead of a commit (settlement-journal.ts).
      this.writer = new UsageWriter(deps.store, deps.logger, deps.clock, memory, {
        journalFile: defaultJournalFile(deps.store),
        ...this.writerOptions(),
      });
      memory.setSink(this.writer);
    }
    // Grants, purchases and refunds reach the counters from wherever they are written (one hook).
    this.unwatchLedger = watchLedgerWithCounters(
      deps.store,
      this.counters,
      (error) => this.ledgerWatchFailed(error),
      this.redisCounters ? `redis:${this.redisCounters.prefix}` : undefined,
    );
  }

  private writerOptions(): UsageWriterOptions {
    return {
      spillFile: this.settings.settlementSpillFile ?? defaultSpillFile(this.deps.store),
      ...this.deps.options,
      onWritten: (records) => this.releaseEnds(records),
    };
  }

  private releaseEnds(records: SettlementRecord[]): void {
    for (const { event } of records) {
      const release = this.endsAwaitingWrite.get(event.id);
      if (!release) continue;
      this.endsAwaitingWrite.delete(event.id);
      release();
    }
  }

  async start(): Promise<void> {
    if (this.redisCounters && !(await this.redisCounters.ready())) {
      this.deps.logger.warn(
        `Redis is not reachable yet; ${this.settings.redisFailureMode === 'open' ? "rate limits run per instance and credit only from this instance's outage lease (fail-open)" : 'requests with limits or credits are refused (fail-closed)'} until it is`,
      );
    }
    if (this.counters instanceof MemoryHotCounters) {
      await this.counters.primeLedgerPoll();
      this.counters.startLedgerPoll(1000, (error) =>
        this.deps.logger.warn({ err: error }, 'could not read new ledger entries; retrying'),
      );
    }
    await this.writer.start();
    // The data generation exists before the first admission (holds are refused without one).
    await this.checkGeneration();
    this.streamWriter?.start();
    if (this.redisCounters) void this.startupCheck(this.redisCounters);
    this.repairTimer = setInterval(() => {
      void this.repairMissed();
      void this.returnIdleLeases();
      void this.checkGeneration();
    }, 1000);
    this.repairTimer.unref();
  }

  /** The shared counters checked against the ledger when an instance starts (in the background). */
  private async startupCheck(counters: RedisHotCounters): Promise<void> {
    try {
      const drift = await counters.reconcile(this.deps.clock.now());
      if (drift.length > 0)
        this.deps.logger.warn(
          { drift: drift.slice(0, 20) },
          `hot counters checked against the ledger at start-up: ${drift.length} had drifted and were rebuilt`,
        );
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'could not check the hot counters against the ledger at start-up');
    }
  }

  /** Writes pending usage, then closes Redis: call after the server stopped taking requests. */
  async stop(): Promise<void> {
    clearInterval(this.repairTimer);
    this.unanswered?.close();
    await this.writer.stop();
    await this.streamWriter?.stop();
    await this.repairMissed();
    await this.unanswered?.sweep();
    await this.returnLeases(this.leases?.unused() ?? []);
    this.unwatchLedger();
    await this.counters.close();
    await this.local?.close();
  }

  /** Writes every settled request to the store now (tests; the writers do it by themselves). */
  async flush(): Promise<void> {
    await this.writer.flush();
    // With Redis down the stream cannot be read: its entries are written once it is back.
    await this.streamWriter?.flush().catch((error) => this.warn(error, 'reading the settlement stream'));
  }

  /** Holds waiting to be released after an admission Redis did not answer (tests). */
  get unansweredHolds(): number {
    return this.unanswered?.size ?? 0;
  }

  /** Why settlement is stalled on this instance (null: it is not), for readiness. */
  settlementStalled(limitMs = SETTLEMENT_STALL_MS): string | null {
    return this.streamWriter?.stalled(limitMs) ?? null;
  }

  /** Settlements waiting for the store: in this process's writer, and (Redis) in the shared stream. */
  get backlog(): number {
    return this.writer.pending + (this.streamWriter?.streamLength ?? 0);
  }

  async admit({ request, key, candidates, outcome, reply }: AdmissionInput): Promise<void> {
    const metered: MeteredRequest = {
      request,
      promptSize: null,
      reservedTokens: 0,
      keyLimits: null,
      hold: null,
      fromLease: false,
      releaseEnd: deferResponseEnd(reply.raw, END_WAIT_MS),
    };
    this.requests.set(outcome, metered);
    if (!key) return;
    const limits = keyLimitsOf(key);
    const quota = keyQuotaNanos(key);
    const trackKey = quota.monthly !== null || quota.lifetime !== null;
    const trackUser = this.settings.requireCredits;
    const rated = limits.rpmLimit !== null || limits.tpmLimit !== null;
    if (!rated && !trackKey && !trackUser) return;
    const promptTokens = () => (metered.promptSize ??= estimatePromptSize(request));
    const now = this.deps.clock.now();
    const hold: Hold | null =
      trackKey || trackUser
        ? {
            id: this.deps.ids.next('hold_'),
            userId: key.userId,
            keyId: key.id,
            amount: holdAmount(
              request,
              candidates.map((candidate) => candidate.endpoint),
              promptTokens(),
              this.settings.defaultMaxOutputTokens,
            ),
            expiresAt: now + this.settings.holdTtlMs,
            trackUser,
            trackKey,
          }
        : null;
    const check: AdmissionCheck = {
      keyId: key.id,
      rate: rated ? { limits, tokens: limits.tpmLimit ? promptTokens() : 0 } : null,
      hold,
      monthlyQuota: quota.monthly,
      lifetimeLimit: quota.lifetime,
      now,
    };
    const decision = await this.decide(check);
    if (decision.rate) {
      if (!decision.rate.allowed) throw rateLimitError(decision.rate);
      metered.reservedTokens = check.rate!.tokens;
      metered.keyLimits = limits;
      // Set on the raw response so both the JSON answer and a hijacked SSE stream carry them.
      for (const [name, value] of Object.entries(rateLimitHeaders(decision.rate))) reply.raw.setHeader(name, value);
    }
    if (hold) {
      if (decision.hold !== 'held') throw holdRefusal(decision.hold ?? 'insufficient_credits');
      metered.hold = hold;
      metered.fromLease = decision.fromLease === true;
    }
  }

  onCompletion(outcome: CompletionOutcome): void {
    const metered = this.requests.get(outcome);
    this.requests.delete(outcome);
    try {
      const event = buildUsageEvent({
        id: this.deps.ids.next('usage_'),
        outcome,
        pricing: this.pricingOf(outcome),
        estimatePrompt: () => (metered ? estimatePromptTokens(metered.request) : 0),
      });
      this.deps.onUsage?.(event);
      const charge = this.settings.requireCredits && event.user_id !== null && event.cost_nanos > 0;
      const settlement: Settlement = {
        hold: metered?.hold ?? null,
        userId: event.user_id,
        keyId: event.key_id,
        charge: charge ? event.cost_nanos : 0,
        keySpend: event.key_id ? event.cost_nanos : 0,
        month: monthOf(event.created_at),
        tokens:
          metered?.keyLimits?.tpmLimit && event.key_id
            ? { limits: metered.keyLimits, delta: event.total_tokens - metered.reservedTokens }
            : null,
        record: { event, charge, storeHold: null },
        now: this.deps.clock.now(),
      };
      if (metered?.fromLease && metered.hold && this.leases) {
        // Admitted from the lease while Redis was away: the hold was never in Redis; the charge
        // leaves the lease when Redis takes the settlement (or when the repair after the fault runs).
        this.leases.settled(metered.hold.userId, metered.hold.amount, settlement.charge);
        if (settlement.charge > 0) settlement.leaseDebit = { id: this.leases.id, amount: settlement.charge };
      }
      if (metered) this.endsAwaitingWrite.set(event.id, metered.releaseEnd);
      if (this.counters instanceof MemoryHotCounters) this.counters.settleNow(settlement);
      else this.settleInRedis(settlement);
    } catch (error) {
      metered?.releaseEnd();
      this.deps.logger.error({ err: error, requestId: outcome.requestId }, 'could not meter a request');
    }
  }

  /**
   * Prices the request as it stands and freezes the figure on the outcome: settlement then
   * charges exactly what the answer reports (usage.cost). Call only once the usage is final.
   */
  priceAnswer(outcome: CompletionOutcome, request: ChatCompletionRequest): PricedOutcome {
    outcome.priced ??= priceOutcome({
      outcome,
      pricing: this.pricingOf(outcome),
      estimatePrompt: () => estimatePromptTokens(this.requests.get(outcome)?.request ?? request),
    });
    return outcome.priced;
  }

  /** Balance (every settled charge included) and open holds, for the account API. */
  async balanceOf(userId: string): Promise<{ balance: number; held: number }> {
    const now = this.deps.clock.now();
    try {
      return await this.counters.balance(userId, now);
    } catch (error) {
      this.warn(error, 'reading a balance');
      const [balance, held] = await Promise.all([
        getBalance(this.deps.store, userId),
        storeHeld(this.deps.store, userId, now),
      ]);
      return { balance, held };
    }
  }

  /** Rebuilds the hot counters from the ledger (`gateway credits reconcile`, start-up check). */
  async reconcile(): Promise<CounterDrift[]> {
    await this.flush();
    return this.counters.reconcile(this.deps.clock.now());
  }

  private async decide(check: AdmissionCheck): Promise<AdmissionDecision> {
    if (!this.redisCounters) return this.counters.admit(check);
    const userId = check.hold?.trackUser ? check.hold.userId : null;
    const leases = userId ? this.leases : undefined;
    let lease = leases?.request(userId!, check.hold!.amount, check.now);
    try {
      for (let attempt = 0; ; attempt++) {
        leases?.sending(userId!, lease);
        const decision = await this.redisCounters.admit({ ...check, lease });
        leases?.answered(userId!, lease, decision.lease, this.deps.clock.now());
        // Short of free balance, but this instance's own lease covers it: asked again, allowed to take from it.
        if (!decision.leaseCouldCover || attempt > 0 || !leases) return decision;
        lease = leases.request(userId!, check.hold!.amount, check.now, true);
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
      if (check.hold && reached) this.unanswered!.add(check.hold);
      leases?.unanswered(userId!, lease, reached);
      this.warn(error, 'admission');
      if (this.settings.redisFailureMode === 'closed') throw new LimitsUnavailableError(error);
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
    const local = await this.local!.admit({ ...check, hold: null });
    if (!check.hold || (local.rate && !local.rate.allowed)) return local;
    const { hold, now } = check;
    if (hold.trackKey && hold.keyId) {
      const spend = await this.source.keySpend(hold.keyId);
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

  private settleInRedis(settlement: Settlement): void {
    this.redisCounters!.settleFromLease(settlement).then(
      ({ entryId, lease }) => {
        this.sent?.add(entryId, settlement.record);
        if (settlement.leaseDebit && settlement.userId)
          this.leases?.debited(settlement.userId, settlement.leaseDebit.amount, lease);
        this.releaseEnds([settlement.record]);
      },
      (error) => {
        // Redis refused the settlement: the record goes to the store from here, and the counters
        // are repaired (hold released, accounts reloaded from the ledger) once Redis answers again.
        this.warn(error, 'settlement');
        this.writer.enqueue(settlement.record);
        this.missedInRedis.push(settlement);
      },
    );
  }

  private repairing = false;
  private async repairMissed(): Promise<void> {
    if (this.repairing || this.missedInRedis.length === 0 || !this.redisCounters) return;
    this.repairing = true;
    try {
      await this.writer.flush();
      const missed = this.missedInRedis;
      this.missedInRedis = [];
      try {
        // Reloaded from the ledger (which has these charges now) before their holds and lease
        // amounts are let go: in between, the money counts twice, never not at all.
        const drift = await this.redisCounters.reconcile(this.deps.clock.now());
        while (missed.length > 0) {
          const settlement = missed[0];
          const debit = settlement.leaseDebit;
          if (debit && settlement.userId) {
            const after = await this.redisCounters.shrinkLease(settlement.userId, debit.id, debit.amount);
            this.leases?.debited(settlement.userId, debit.amount, after);
          } else await this.redisCounters.releaseOnly(settlement);
          missed.shift();
        }
        this.deps.logger.info(
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
   * Once a second: has Redis lost its data (another generation)? Then the records this instance
   * had sent to the lost stream are written to the store from here (answers already sent must be
   * recorded and charged); else the ones Redis has written are let go.
   */
  private checkingGeneration = false;
  private async checkGeneration(): Promise<void> {
    if (!this.redisCounters || !this.sent || this.checkingGeneration) return;
    this.checkingGeneration = true;
    try {
      const { generation, oldest } = await this.redisCounters.generation(this.deps.ids.next('gen_'));
      if (!this.sent.isNew(generation)) {
        this.sent.checked(generation, oldest);
        return;
      }
      // Redis lost its data: holds wait (503) for a few seconds while every instance writes the
      // settlements it had sent to the lost stream, so that balances are loaded with them.
      this.leases?.lost();
      await this.redisCounters.generation('', this.deps.clock.now() + DATA_LOSS_FENCE_MS);
      const lost = this.sent.checked(generation, oldest);
      this.deps.logger.error(
        { settlements: lost.length },
        `Redis lost its data (restarted without persistence?): credit holds wait ${DATA_LOSS_FENCE_MS / 1000} s while the instances write again the settlements they had sent to it; run Redis with appendonly yes`,
      );
      if (lost.length === 0) return;
      this.deps.logger.error(
        { settlements: lost.length },
        `Redis lost its data (restarted without persistence?): writing the ${lost.length} settlements this instance had sent to its stream to the store directly; run Redis with appendonly yes`,
      );
      for (const record of lost) this.writer.enqueue(record);
    } catch {
      // Redis down: checked again in a second.
    } finally {
      this.checkingGeneration = false;
    }
  }

  private async returnIdleLeases(): Promise<void> {
    if (this.leases) await this.returnLeases(this.leases.idle(this.deps.clock.now()));
  }

  /** Gives leases back to the balance (idle ones, or all unused ones at shutdown); Redis down: kept. */
  private async returnLeases(userIds: string[]): Promise<void> {
    const leases = this.leases;
    if (!leases || !this.redisCounters) return;
    for (const userId of userIds) {
      leases.shrinkStarted(userId);
      let after: number | null = null;
      try {
        after = await this.redisCounters.shrinkLease(userId, leases.id, leases.of(userId)?.amount ?? 0);
      } catch {
        return;
      } finally {
        leases.shrinkEnded(userId, after);
      }
    }
  }

  private ledgerWatchFailed(error: unknown): void {
    this.deps.logger.error(
      { err: error },
      'a ledger entry could not be applied to the hot counters; run `gateway credits reconcile`',
    );
  }

  /** At most one warning every 10 s: an outage must not flood the log at thousands of requests a second. */
  private warn(error: unknown, what: string): void {
    const now = this.deps.clock.now();
    if (now - this.lastWarning < 10_000) return;
    this.lastWarning = now;
    this.deps.logger.warn(
      { err: error, mode: this.settings.redisFailureMode },
      `Redis failed during ${what}; ${this.settings.redisFailureMode === 'open' ? "rate limits are enforced per instance from memory and credit only from this instance's outage lease (fail-open)" : 'requests with limits or credits are refused with 503 (fail-closed)'} until it answers`,
    );
  }

  private pricingOf(outcome: CompletionOutcome): Pricing | null {
    if (!outcome.modelId || !outcome.providerId) return null;
    const model = this.deps.directory.get(outcome.modelId);
    const endpoint = model?.endpoints.find(
      (candidate) => candidate.providerId === outcome.providerId && candidate.upstreamModel === outcome.upstreamModel,
    );
    return endpoint?.pricing ?? null;
  }
}

import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { GatewayConfig, Pricing } from '../config/gateway-config.js';
import type { Store } from '../store/database.js';
import type { RedisClient } from '../store/redis-client.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import type { CompletionObserver, CompletionOutcome, PricedOutcome } from '../routing/completion-outcome.js';
import type { ModelDirectory } from '../routing/model-directory.js';
import type { AdmissionInput, RequestAdmission } from '../gateway/request-admission.js';
import type { AnswerPricer } from '../gateway/engine/answer-cost.js';
import type { ChatCompletionRequest } from '../shared/openai-types.js';
import { getBalance } from '../credits/credit-ledger.js';
import { storeHeld } from '../credits/store-holds.js';
import { watchLedgerWithCounters } from './ledger-counters-watch.js';
import { estimatePromptSize, estimatePromptTokens } from './estimate-tokens.js';
import type { AdmissionCheck, CounterDrift, Hold, HotCounters, Settlement } from './hot-counters.js';
import { storeCounterSource } from './counter-source.js';
import type { MeteringBackend, MeteringBackendContext } from './metering-backend.js';
import { MemoryMeteringBackend } from './memory-metering.js';
import { RedisMeteringBackend } from './redis-metering.js';
import { readMeteringSettings, type MeteringSettings } from './metering-settings.js';
import { buildUsageEvent, priceOutcome } from './usage-event.js';
import type { UsageWriter, UsageWriterOptions } from './usage-writer.js';
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
  redis?: RedisClient;
  /** Prefix of every Redis key (tests use a random one). */
  redisKeyPrefix?: string;
  options?: MeteringOptions;
  /** Sees every usage record as it is settled (metrics count tokens and cost from it). */
  onUsage?: (event: UsageEventsTable) => void;
}

/**
 * Metering for the chat path (the same for one instance and many; where the counters live is the
 * backend's business, see metering-backend.ts): admission before the request (rate windows, key quotas, credit
 * hold: one atomic step in the hot counters) and, through the CompletionObserver, settlement (the
 * hold becomes the charge in the counters at once; the usage event and ledger charge go to the
 * store behind the request, through the Redis settlement stream or the in-process writer).
 */
export class Metering implements RequestAdmission, CompletionObserver, AnswerPricer {
  readonly settings: MeteringSettings;
  /** Memory or Redis, chosen once here; everything below is the same for both. */
  private readonly backend: MeteringBackend;
  private readonly requests = new WeakMap<CompletionOutcome, MeteredRequest>();
  private readonly unwatchLedger: () => void;
  private lastWarning = 0;
  /** Responses whose end waits for their record to be written by this instance's writer. */
  private readonly endsAwaitingWrite = new Map<string, () => void>();

  constructor(private readonly deps: MeteringDeps) {
    this.settings = readMeteringSettings(deps.config);
    const context: MeteringBackendContext = {
      store: deps.store,
      logger: deps.logger,
      clock: deps.clock,
      ids: deps.ids,
      settings: this.settings,
      source: storeCounterSource(deps.store),
      writerOptions: {
        spillFile: this.settings.settlementSpillFile ?? defaultSpillFile(deps.store),
        ...deps.options,
        onWritten: (records) => this.releaseEnds(records),
      },
      releaseEnds: (records) => this.releaseEnds(records),
      warn: (error, what) => this.warn(error, what),
    };
    this.backend = deps.redis
      ? new RedisMeteringBackend(deps.redis, context, {
          prefix: deps.redisKeyPrefix,
          streamBlockMs: deps.options?.streamBlockMs,
        })
      : new MemoryMeteringBackend(context);
    // Grants, purchases and refunds reach the counters from wherever they are written (one hook).
    this.unwatchLedger = watchLedgerWithCounters(
      deps.store,
      this.backend.counters,
      (error) => this.ledgerWatchFailed(error),
      this.backend.ledgerIdentity,
    );
  }

  get counters(): HotCounters {
    return this.backend.counters;
  }

  /** The store writer of this instance (without Redis: every settlement; with it: those Redis refused). */
  get writer(): UsageWriter {
    return this.backend.writer;
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
    await this.backend.start();
  }

  /** Writes pending usage, then closes Redis: call after the server stopped taking requests. */
  async stop(): Promise<void> {
    await this.backend.drain();
    this.unwatchLedger();
    await this.backend.close();
  }

  /** Writes every settled request to the store now (tests; the writers do it by themselves). */
  async flush(): Promise<void> {
    await this.backend.flush();
  }

  /** Redis only: requests admitted locally from the lease, and admissions that asked Redis (tests, measurements). */
  get admissions(): { local: number; redis: number } | null {
    return this.backend.admissions ?? null;
  }

  /** Holds waiting to be released after an admission Redis did not answer (tests). */
  get unansweredHolds(): number {
    return this.backend.unansweredHolds;
  }

  /** Why settlement is stalled on this instance (null: it is not), for readiness. */
  settlementStalled(limitMs = SETTLEMENT_STALL_MS): string | null {
    return this.backend.settlementStalled(limitMs);
  }

  /** Settlements waiting for the store: in this process's writer, and (Redis) in the shared stream. */
  get backlog(): number {
    return this.backend.backlog;
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
    const rate = rated ? { limits, tokens: limits.tpmLimit ? promptTokens() : 0 } : null;
    const check: AdmissionCheck = {
      keyId: key.id,
      userId: key.userId,
      rate,
      hold,
      monthlyQuota: quota.monthly,
      lifetimeLimit: quota.lifetime,
      now,
    };
    const decision = await this.backend.admit(check);
    if (decision.rate) {
      if (!decision.rate.allowed) throw rateLimitError(decision.rate);
      metered.reservedTokens = rate?.tokens ?? 0;
      metered.keyLimits = limits;
      // Set on the raw response so both the JSON answer and a hijacked SSE stream carry them.
      for (const [name, value] of Object.entries(rateLimitHeaders(decision.rate))) reply.raw.setHeader(name, value);
    }
    if (hold) {
      if (decision.hold !== 'held') throw holdRefusal(decision.hold ?? 'insufficient_credits');
      metered.hold = hold;
      metered.fromLease = decision.fromLease === true;
    }
    if (decision.localWindow) {
      // Admitted locally: Redis has no reservation of this request's tokens; its settlement
      // writes the window units (rpm) and the whole tokens (tpm).
      metered.localWindow = decision.localWindow;
      metered.reservedTokens = 0;
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
        localWindow: metered?.localWindow,
      };
      if (metered) this.endsAwaitingWrite.set(event.id, metered.releaseEnd);
      this.backend.settle(settlement, metered?.fromLease === true);
      // After the settlement is sent (issue 31): the metrics' counting overlaps its round trip.
      this.deps.onUsage?.(event);
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

import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { GatewayConfig, Pricing } from '../config/gateway-config.js';
import type { Store } from '../store/database.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import type { CompletionObserver, CompletionOutcome } from '../routing/completion-outcome.js';
import type { ModelDirectory } from '../routing/model-directory.js';
import type { AdmissionInput, RequestAdmission } from '../gateway/request-admission.js';
import { getBalance } from '../credits/credit-ledger.js';
import { keySpend } from './key-spend.js';
import { estimatePromptTokens } from './estimate-tokens.js';
import type { LimitBackend } from './limit-backend.js';
import { MemoryLimitBackend } from './memory-limit-backend.js';
import { RedisLimitBackend } from './redis-limit-backend.js';
import { ResilientLimitBackend } from './resilient-limit-backend.js';
import { readMeteringSettings, type MeteringSettings } from './metering-settings.js';
import { buildUsageEvent } from './usage-event.js';
import { UsageWriter, type UsageWriterOptions } from './usage-writer.js';
import type { UsageEventsTable } from './metering-schema.js';
import {
  holdAmount,
  holdRefusal,
  keyLimitsOf,
  keyQuotaNanos,
  rateLimitError,
  rateLimitHeaders,
  type MeteredRequest,
} from './metering-admission.js';

export type MeteringOptions = UsageWriterOptions;

export interface MeteringDeps {
  config: GatewayConfig;
  store: Store;
  logger: Logger;
  clock: Clock;
  ids: IdGenerator;
  directory: ModelDirectory;
  /** Limits and holds shared by every instance; without it they are kept per instance, in memory. */
  redis?: Redis;
  /** Prefix of every Redis key (tests use a random one). */
  redisKeyPrefix?: string;
  options?: MeteringOptions;
  /** Sees every usage record as it is queued (metrics count tokens and cost from it). */
  onUsage?: (event: UsageEventsTable) => void;
}

/**
 * Metering for the chat path: admission before the request (rate limits, key quotas, credit
 * holds) and, through the CompletionObserver, one usage event per request, written in batches
 * together with its charge.
 */
export class Metering implements RequestAdmission, CompletionObserver {
  readonly settings: MeteringSettings;
  readonly backend: LimitBackend;
  readonly writer: UsageWriter;
  private readonly requests = new WeakMap<CompletionOutcome, MeteredRequest>();
  private redis: RedisLimitBackend | undefined;

  constructor(private readonly deps: MeteringDeps) {
    this.settings = readMeteringSettings(deps.config);
    if (deps.redis) {
      this.redis = new RedisLimitBackend(deps.redis, deps.redisKeyPrefix);
      this.backend = new ResilientLimitBackend(this.redis, this.settings.redisFailureMode, deps.logger, deps.clock);
    } else {
      this.backend = new MemoryLimitBackend();
    }
    this.writer = new UsageWriter(
      deps.store,
      deps.logger,
      (hold) => this.backend.release(hold),
      deps.clock,
      deps.options,
    );
  }

  async start(): Promise<void> {
    if (this.redis && !(await this.redis.ready())) {
      this.deps.logger.warn(
        `Redis is not reachable yet; limits run ${this.settings.redisFailureMode === 'open' ? 'per instance (fail-open)' : 'refusing requests (fail-closed)'} until it is`,
      );
    }
    this.writer.start();
  }

  /** Writes pending usage, then closes Redis: call after the server stopped taking requests. */
  async stop(): Promise<void> {
    await this.writer.stop();
    await this.backend.close();
  }

  async admit({ request, key, candidates, outcome, reply }: AdmissionInput): Promise<void> {
    const metered: MeteredRequest = { request, promptEstimate: null, reservedTokens: 0, keyLimits: null, hold: null };
    this.requests.set(outcome, metered);
    if (!key) return;
    const limits = keyLimitsOf(key);
    const quota = keyQuotaNanos(key);
    const trackKey = quota.monthly !== null || quota.lifetime !== null;
    const trackUser = this.settings.requireCredits;
    if (!limits.rpmLimit && !limits.tpmLimit && !trackKey && !trackUser) return;
    const promptTokens = () => (metered.promptEstimate ??= estimatePromptTokens(request));
    const now = this.deps.clock.now();

    if (limits.rpmLimit || limits.tpmLimit) {
      const reserved = limits.tpmLimit ? promptTokens() : 0;
      const check = await this.backend.checkRate(key.id, limits, reserved, now);
      if (!check.allowed) throw rateLimitError(check);
      metered.reservedTokens = reserved;
      metered.keyLimits = limits;
      // Set on the raw response so both the JSON answer and a hijacked SSE stream carry them.
      for (const [name, value] of Object.entries(rateLimitHeaders(check))) reply.raw.setHeader(name, value);
    }

    if (trackKey || trackUser) {
      const amount = holdAmount(
        request,
        candidates.map((candidate) => candidate.endpoint),
        promptTokens(),
        this.settings.defaultMaxOutputTokens,
      );
      const [balance, spend] = await Promise.all([
        trackUser ? getBalance(this.deps.store, key.userId) : null,
        trackKey
          ? keySpend(this.deps.store.db, [key.id], now).then(
              (spent) => spent.get(key.id) ?? { monthNanos: 0, totalNanos: 0 },
            )
          : null,
      ]);
      const hold = {
        id: this.deps.ids.next('hold_'),
        userId: key.userId,
        keyId: key.id,
        amount,
        expiresAt: now + this.settings.holdTtlMs,
        trackUser,
        trackKey,
      };
      const decision = await this.backend.reserve(
        hold,
        {
          userBalance: balance,
          keyMonthRemaining: quota.monthly === null || !spend ? null : quota.monthly - spend.monthNanos,
          keyLifetimeRemaining: quota.lifetime === null || !spend ? null : quota.lifetime - spend.totalNanos,
        },
        now,
      );
      if (decision !== 'held') throw holdRefusal(decision);
      metered.hold = hold;
    }
  }

  onCompletion(outcome: CompletionOutcome): void {
    try {
      const metered = this.requests.get(outcome);
      this.requests.delete(outcome);
      const event = buildUsageEvent({
        id: this.deps.ids.next('usage_'),
        outcome,
        pricing: this.pricingOf(outcome),
        estimatePrompt: () => (metered ? (metered.promptEstimate ??= estimatePromptTokens(metered.request)) : 0),
      });
      if (metered?.keyLimits?.tpmLimit && outcome.keyId) {
        const delta = event.total_tokens - metered.reservedTokens;
        void this.backend
          .adjustTokens(outcome.keyId, metered.keyLimits, delta, this.deps.clock.now())
          .catch(() => undefined);
      }
      this.deps.onUsage?.(event);
      const charge = this.settings.requireCredits && event.user_id !== null && event.cost_nanos > 0;
      if (metered?.hold && !charge && event.cost_nanos === 0) {
        // Nothing to charge and nothing to add to the key's spend: free the hold now.
        void this.backend.release(metered.hold).catch(() => undefined);
        this.writer.enqueue({ event, hold: null, charge: false });
      } else {
        this.writer.enqueue({ event, hold: metered?.hold ?? null, charge });
      }
    } catch (error) {
      this.deps.logger.error({ err: error, requestId: outcome.requestId }, 'could not meter a request');
    }
  }

  /** Balance and open holds, for the account API. */
  async balanceOf(userId: string): Promise<{ balance: number; held: number }> {
    const [balance, held] = await Promise.all([
      getBalance(this.deps.store, userId),
      this.backend.heldForUser(userId, this.deps.clock.now()),
    ]);
    return { balance, held };
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

import { describe, expect, it } from 'vitest';
import type { CompletionOutcome } from '../routing/completion-outcome.js';
import type { Pricing } from '../config/gateway-config.js';
import { buildUsageEvent, priceOutcome } from './usage-event.js';

const pricing: Pricing = {
  promptMicros: 500_000,
  completionMicros: 1_500_000,
  cacheReadMicros: 250_000,
  cacheWriteMicros: null,
  perRequestMicros: 10,
  perSearchMicros: 0,
};

function outcome(extra: Partial<CompletionOutcome>): CompletionOutcome {
  return {
    requestId: 'req-1',
    keyId: 'key-1',
    userId: 'user-1',
    requestedModel: 'm',
    modelId: 'm',
    providerId: 'p',
    upstreamModel: 'u',
    streamed: false,
    status: 200,
    errorCode: null,
    usage: null,
    outputCharacters: 0,
    clientAborted: false,
    startedAt: 1_000,
    latencyMs: 2_000,
    timeToFirstTokenMs: null,
    attempts: [],
    ...extra,
  };
}

const build = (extra: Partial<CompletionOutcome>, estimate = 7) =>
  buildUsageEvent({ id: 'usage_1', outcome: outcome(extra), pricing, estimatePrompt: () => estimate });

describe('buildUsageEvent', () => {
  it.each([
    [
      'provider usage with cached and reasoning tokens',
      {
        usage: {
          prompt_tokens: 100,
          completion_tokens: 40,
          total_tokens: 140,
          prompt_tokens_details: { cached_tokens: 60 },
          completion_tokens_details: { reasoning_tokens: 15 },
        },
      },
      {
        prompt_tokens: 100,
        completion_tokens: 40,
        cached_tokens: 60,
        reasoning_tokens: 15,
        total_tokens: 140,
        tokens_estimated: 0,
        cost_nanos: 40 * 500 + 60 * 250 + 40 * 1500 + 10_000,
      },
    ],
    [
      'no usage from the provider: estimated prompt and output',
      { outputCharacters: 41 },
      { prompt_tokens: 7, completion_tokens: 11, tokens_estimated: 1, cost_nanos: 7 * 500 + 11 * 1500 + 10_000 },
    ],
    [
      'failed before producing anything: free',
      { status: 502, errorCode: 'upstream_error' },
      { prompt_tokens: 0, completion_tokens: 0, cost_nanos: 0, status: 502, error_code: 'upstream_error' },
    ],
    [
      'client left mid-stream: pays what was generated, no per-request price',
      { status: 502, streamed: true, clientAborted: true, outputCharacters: 8, timeToFirstTokenMs: 500 },
      { prompt_tokens: 7, completion_tokens: 2, cost_nanos: 7 * 500 + 2 * 1500, client_aborted: 1, streamed: 1 },
    ],
  ])('%s', (_name, extra, expected) => {
    expect(build(extra as Partial<CompletionOutcome>)).toMatchObject(expected);
  });

  it('records latency, time to first token, tokens per second and attempts', () => {
    const attempts = [
      { providerId: 'p', modelId: 'm', upstreamModel: 'u', status: 200, errorCode: null, startedAt: 0, latencyMs: 90 },
    ];
    const event = build({
      streamed: true,
      timeToFirstTokenMs: 500,
      latencyMs: 1_500,
      usage: { prompt_tokens: 1, completion_tokens: 50, total_tokens: 51 },
      attempts,
    });
    expect(event).toMatchObject({
      latency_ms: 1_500,
      time_to_first_token_ms: 500,
      tokens_per_second: 50,
      attempt_count: 1,
      created_at: 1_000,
      request_id: 'req-1',
    });
    expect(JSON.parse(event.attempts)).toEqual(attempts);
  });

  it('costs nothing without a serving endpoint price', () => {
    expect(
      buildUsageEvent({
        id: 'x',
        outcome: outcome({ usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 } }),
        pricing: null,
        estimatePrompt: () => 0,
      }).cost_nanos,
    ).toBe(0);
  });
});

describe('priceOutcome (usage.cost in the answer)', () => {
  const usage = {
    prompt_tokens: 100,
    completion_tokens: 40,
    total_tokens: 140,
    prompt_tokens_details: { cached_tokens: 60, cache_write_tokens: 10 },
  };

  it('splits the charge by part; the parts are the cost', () => {
    const priced = priceOutcome({ outcome: outcome({ usage }), pricing, estimatePrompt: () => 0 });
    // 30 uncached × 0.5 + 60 cached × 0.25 + 10 written × 0.5 (no cache_write price) + 40 × 1.5 µUSD, + 10 µUSD.
    expect(priced.parts).toEqual({
      promptNanos: 15_000,
      cacheReadNanos: 15_000,
      cacheWriteNanos: 5_000,
      completionNanos: 60_000,
      requestNanos: 10_000,
    });
    expect(priced.costNanos).toBe(105_000);
    expect(buildUsageEvent({ id: 'u', outcome: outcome({ usage }), pricing, estimatePrompt: () => 0 }).cost_nanos).toBe(
      105_000,
    );
  });

  it('settlement charges the priced figure the answer reported, even if the outcome changes afterwards', () => {
    const answered = outcome({ usage });
    answered.priced = priceOutcome({ outcome: answered, pricing, estimatePrompt: () => 0 });
    // The client went away after the last chunk: recorded as a failure, but it was told (and owes) the cost.
    answered.status = 499;
    answered.errorCode = 'client_closed_request';
    const event = buildUsageEvent({ id: 'u', outcome: answered, pricing, estimatePrompt: () => 0 });
    expect(event.cost_nanos).toBe(105_000);
    expect(event.status).toBe(499);
  });
});

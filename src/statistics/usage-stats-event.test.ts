import { describe, expect, it } from 'vitest';
import type { AttemptRecord, CompletionOutcome } from '../routing/completion-outcome.js';
import { usageStatsEventsFromOutcome } from './usage-stats-event.js';

const attempt = (providerId: string, status: number, errorCode: string | null = null): AttemptRecord => ({
  providerId,
  modelId: `${providerId}/model`,
  upstreamModel: 'm',
  status,
  errorCode,
  startedAt: 1_000,
  latencyMs: 50,
});

const outcome = (changes: Partial<CompletionOutcome>): CompletionOutcome => ({
  requestId: 'req',
  keyId: 'key',
  userId: 'user',
  requestedModel: 'a/model',
  modelId: null,
  providerId: null,
  upstreamModel: null,
  streamed: false,
  status: 502,
  errorCode: 'upstream_error',
  usage: null,
  outputCharacters: 0,
  clientAborted: false,
  startedAt: 1_000,
  latencyMs: 300,
  timeToFirstTokenMs: null,
  attempts: [],
  ...changes,
});

describe('usageStatsEventsFromOutcome', () => {
  it('counts a failed attempt for its provider even when a fallback answered', () => {
    const events = usageStatsEventsFromOutcome(
      outcome({
        modelId: 'b/model',
        providerId: 'b',
        status: 200,
        usage: { prompt_tokens: 3, completion_tokens: 7, total_tokens: 10 },
        attempts: [attempt('a', 503), attempt('b', 200)],
      }),
    );
    expect(events.map((event) => [event.providerId, event.status, event.completionTokens])).toEqual([
      ['a', 503, 0],
      ['b', 200, 7],
    ]);
    expect(events[0]).toMatchObject({ modelId: 'a/model', timestamp: 1_050, ttftMs: null });
  });

  it('counts every attempt of a request no provider answered; nothing when none was tried', () => {
    const events = usageStatsEventsFromOutcome(outcome({ attempts: [attempt('a', 502), attempt('b', 504)] }));
    expect(events.map((event) => [event.providerId, event.status])).toEqual([
      ['a', 502],
      ['b', 504],
    ]);
    expect(usageStatsEventsFromOutcome(outcome({ status: 403, attempts: [] }))).toEqual([]);
  });

  it('leaves out an attempt the client cut short: it says nothing about the provider', () => {
    const events = usageStatsEventsFromOutcome(
      outcome({ clientAborted: true, attempts: [attempt('a', 502, 'client_closed_request')] }),
    );
    expect(events).toEqual([]);
  });
});

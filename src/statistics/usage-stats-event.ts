import type { CompletionOutcome } from '../routing/completion-outcome.js';

/**
 * The plain event the statistics rollups consume. The gateway's CompletionObserver produces it
 * today; the metering feature's stored usage events can be replayed into it too.
 */
export interface UsageStatsEvent {
  /** Epoch milliseconds when the request finished. */
  timestamp: number;
  modelId: string;
  providerId: string;
  userId: string | null;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
  /** Time to first token; null when unknown (a non-streamed answer counts its whole latency). */
  ttftMs: number | null;
  /** HTTP status the request ended with. */
  status: number;
}

export const isSuccess = (event: Pick<UsageStatsEvent, 'status'>) => event.status < 400;
/** Failures that count against a provider's uptime: its own errors, not the client's. */
export const isUpstreamFailure = (event: Pick<UsageStatsEvent, 'status'>) => event.status >= 500;

/**
 * A finished request → its stats events, one per upstream attempt, each counted for the provider
 * and model it was made on. An attempt that failed (refused, timed out, 5xx, a body that would not
 * parse, 429) is a failed request of that provider even when a fallback then answered; the attempt
 * that produced the answer carries the request's tokens and timings. Nothing when no provider was
 * tried; an attempt the client cut short says nothing about the provider and is left out.
 */
export function usageStatsEventsFromOutcome(outcome: CompletionOutcome): UsageStatsEvent[] {
  const answered = outcome.modelId !== null && outcome.providerId !== null;
  const failedAttempts = answered ? outcome.attempts.slice(0, -1) : outcome.attempts;
  const events: UsageStatsEvent[] = [];
  for (const attempt of failedAttempts) {
    if (attempt.status < 400 || attempt.errorCode === CLIENT_CLOSED) continue;
    events.push({
      timestamp: attempt.startedAt + attempt.latencyMs,
      modelId: attempt.modelId,
      providerId: attempt.providerId,
      userId: outcome.userId,
      promptTokens: 0,
      completionTokens: 0,
      latencyMs: attempt.latencyMs,
      ttftMs: null,
      status: attempt.status,
    });
  }
  const final = usageStatsEventFromOutcome(outcome);
  if (final) events.push(final);
  return events;
}

/** The code of an attempt aborted because the client went away (run-chat-request.ts). */
const CLIENT_CLOSED = 'client_closed_request';

/** The request's own event: the attempt that answered (or last failed after answering began). */
function usageStatsEventFromOutcome(outcome: CompletionOutcome): UsageStatsEvent | null {
  if (!outcome.modelId || !outcome.providerId) return null;
  return {
    timestamp: outcome.startedAt + outcome.latencyMs,
    modelId: outcome.modelId,
    providerId: outcome.providerId,
    userId: outcome.userId,
    promptTokens: outcome.usage?.prompt_tokens ?? 0,
    completionTokens: outcome.usage?.completion_tokens ?? 0,
    latencyMs: outcome.latencyMs,
    ttftMs: outcome.timeToFirstTokenMs,
    status: outcome.status,
  };
}

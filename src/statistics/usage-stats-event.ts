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

/** A finished chat request → a stats event; null when it never reached a provider. */
export function usageStatsEventFromOutcome(outcome: CompletionOutcome): UsageStatsEvent | null {
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

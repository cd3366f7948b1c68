import type { Usage } from '../shared/openai-types.js';

/** One upstream attempt, for routing statistics. */
export interface AttemptRecord {
  providerId: string;
  modelId: string;
  upstreamModel: string;
  status: number;
  errorCode: string | null;
  /** Epoch ms when the attempt started (trace spans). */
  startedAt: number;
  latencyMs: number;
}

/** What happened to one chat request, reported once when it is over (success or failure). */
export interface CompletionOutcome {
  requestId: string;
  keyId: string | null;
  userId: string | null;
  requestedModel: string;
  /** The model and endpoint that answered (or were last tried). */
  modelId: string | null;
  providerId: string | null;
  upstreamModel: string | null;
  streamed: boolean;
  /** HTTP status we answered with (200 for a stream that ended in an error event keeps its error status here). */
  status: number;
  errorCode: string | null;
  /** Usage reported by the provider; null when it sent none. */
  usage: Usage | null;
  /** Text the client received (content + reasoning + tool arguments), for estimates when usage is missing. */
  outputCharacters: number;
  clientAborted: boolean;
  startedAt: number;
  latencyMs: number;
  timeToFirstTokenMs: number | null;
  attempts: AttemptRecord[];
  /**
   * Set once the answer told the client its cost (usage.cost): the tokens and charge, frozen.
   * Settlement charges exactly this, so the figure in the answer is the ledger's to the unit.
   */
  priced?: PricedOutcome;
}

/** A request's tokens and cost as priced by metering (nano-USD, integer). */
export interface PricedOutcome {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  /** The tokens are the gateway's estimate (the provider reported none). */
  estimated: boolean;
  /** The charge: what the usage event and the ledger record. */
  costNanos: number;
  /** The charge by part, each rounded to the nano-USD on its own (their sum may differ from costNanos by rounding). */
  parts: {
    promptNanos: number;
    cacheReadNanos: number;
    cacheWriteNanos: number;
    completionNanos: number;
    requestNanos: number;
  };
}

/** Observers of finished requests (metering, statistics). Called off the response path; must not throw. */
export interface CompletionObserver {
  onCompletion(outcome: CompletionOutcome): void;
}

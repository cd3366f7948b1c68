import type { CompletionObserver, CompletionOutcome } from './completion-outcome.js';
import { endpointKey } from './endpoint-key.js';

/** Measured figures of one endpoint; null until a successful request measured them. */
export interface EndpointFigures {
  /** Time to first token, milliseconds (moving average). */
  latencyMs: number | null;
  /** Completion tokens per second after the first token (moving average). */
  throughputTokensPerSecond: number | null;
}

/** How much one new measurement moves the average: recent behaviour matters most. */
const SMOOTHING = 0.2;

/**
 * Speed of each endpoint as this instance has seen it, for `provider.sort` = latency or
 * throughput. Fed by the completion outcome of every successful request. In memory on
 * purpose: ordering is a hint, and each instance's own view of the network is what it routes on.
 */
export class EndpointStats implements CompletionObserver {
  private readonly figuresByKey = new Map<
    string,
    { latencyMs: number | null; throughputTokensPerSecond: number | null }
  >();

  figures(key: string): EndpointFigures {
    return this.figuresByKey.get(key) ?? { latencyMs: null, throughputTokensPerSecond: null };
  }

  record(key: string, measured: { latencyMs?: number; throughputTokensPerSecond?: number }): void {
    const current = this.figuresByKey.get(key) ?? { latencyMs: null, throughputTokensPerSecond: null };
    if (measured.latencyMs !== undefined) current.latencyMs = blend(current.latencyMs, measured.latencyMs);
    if (measured.throughputTokensPerSecond !== undefined)
      current.throughputTokensPerSecond = blend(current.throughputTokensPerSecond, measured.throughputTokensPerSecond);
    this.figuresByKey.set(key, current);
  }

  onCompletion(outcome: CompletionOutcome): void {
    if (outcome.status !== 200 || outcome.clientAborted || !outcome.providerId || !outcome.upstreamModel) return;
    const key = endpointKey(outcome.providerId, outcome.upstreamModel);
    const measured: { latencyMs?: number; throughputTokensPerSecond?: number } = {};
    if (outcome.timeToFirstTokenMs !== null) measured.latencyMs = outcome.timeToFirstTokenMs;
    const tokens = outcome.usage?.completion_tokens;
    // A non-streamed answer arrives at once, so its whole latency is the generation time.
    const generationMs = outcome.streamed ? outcome.latencyMs - (outcome.timeToFirstTokenMs ?? 0) : outcome.latencyMs;
    if (typeof tokens === 'number' && tokens > 0 && generationMs > 0)
      measured.throughputTokensPerSecond = (tokens * 1000) / generationMs;
    this.record(key, measured);
  }
}

function blend(previous: number | null, next: number): number {
  return previous === null ? next : previous + SMOOTHING * (next - previous);
}

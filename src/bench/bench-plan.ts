import type { UpstreamGaps } from './bench-models.js';

export type BenchMode = 'smoke' | 'full';

/** How long and how hard each scenario runs. Every target gets the same plan. */
export interface BenchPlan {
  mode: BenchMode;
  /** Closed-loop connections for the saturation runs (the same for every target). */
  connections: number;
  warmupSeconds: number;
  /**
   * The saturation runs are taken in rounds, every target once per round, one after the other:
   * the machine's speed drifts by tens of percent over minutes (a shared VM), and a target
   * measured only while it was slow would carry that drift into every ratio. Each figure is the
   * median over the rounds.
   */
  rounds: number;
  /** Per round. */
  saturationSeconds: number;
  /** Per round. */
  streamSaturationSeconds: number;
  fixedRate: number;
  fixedRateSeconds: number;
  firstTokenStreams: number;
  firstTokenConcurrency: number;
  openStreams: number;
  gaps: UpstreamGaps;
  /** The in-process CPU per streamed chunk (stream-chunk-cost.ts): deltas a stream, rounds. */
  chunkCost: { deltas: number; rounds: number };
}

export const FULL_PLAN: BenchPlan = {
  mode: 'full',
  connections: 32,
  warmupSeconds: 2,
  rounds: 3,
  saturationSeconds: 4,
  streamSaturationSeconds: 2,
  fixedRate: 500,
  fixedRateSeconds: 10,
  firstTokenStreams: 200,
  firstTokenConcurrency: 10,
  openStreams: 1000,
  // 50 chunks × 160 ms: each slow stream stays open about 8 s, long enough to open all 1,000.
  gaps: { firstTokenGapMs: 5, longOpenGapMs: 160 },
  chunkCost: { deltas: 2000, rounds: 7 },
};

/**
 * About 10 s of load in all, to prove every figure is produced (CI, the test suite). The
 * figures it prints mean nothing: the code is not even warmed up.
 */
export const SMOKE_PLAN: BenchPlan = {
  mode: 'smoke',
  connections: 32,
  warmupSeconds: 0,
  rounds: 1,
  saturationSeconds: 0.5,
  streamSaturationSeconds: 0.3,
  fixedRate: 500,
  fixedRateSeconds: 0.5,
  firstTokenStreams: 10,
  firstTokenConcurrency: 10,
  openStreams: 50,
  gaps: { firstTokenGapMs: 5, longOpenGapMs: 20 },
  // A few milliseconds: proves the figure is produced, without lengthening the suite.
  chunkCost: { deltas: 50, rounds: 1 },
};

import type { UpstreamGaps } from './bench-models.js';
import type { SustainedRatePlan } from './sustained-rate.js';

type BenchMode = 'smoke' | 'full';

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
  /** Concurrency 1, keep-alive: requests measured on the target (and as many on direct, interleaved). */
  oneAtATime: { warmup: number; samples: number };
  /** The highest rate at which added p99 stays within the limit (sustained-rate.ts). */
  sustainedRate: SustainedRatePlan;
  gaps: UpstreamGaps;
  /** The in-process CPU per streamed chunk (stream-chunk-cost.ts): deltas a stream, rounds. */
  chunkCost: { deltas: number; rounds: number };
}

export const FULL_PLAN: BenchPlan = {
  mode: 'full',
  connections: 32,
  warmupSeconds: 2,
  rounds: 3,
  saturationSeconds: 3,
  streamSaturationSeconds: 1.5,
  fixedRate: 500,
  fixedRateSeconds: 6,
  firstTokenStreams: 100,
  firstTokenConcurrency: 10,
  openStreams: 1000,
  oneAtATime: { warmup: 300, samples: 2000 },
  // Doubling from 250 req/s (or halving down to 30), then two bisections: known within ~19 %.
  sustainedRate: { startRate: 250, minRate: 30, maxRate: 32_000, bisections: 2, stepSeconds: 1.5, limitMs: 20 },
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
  oneAtATime: { warmup: 5, samples: 40 },
  sustainedRate: { startRate: 250, minRate: 125, maxRate: 500, bisections: 0, stepSeconds: 0.3, limitMs: 20 },
  gaps: { firstTokenGapMs: 5, longOpenGapMs: 20 },
  // A few milliseconds: proves the figure is produced, without lengthening the suite.
  chunkCost: { deltas: 50, rounds: 1 },
};

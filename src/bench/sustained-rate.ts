import type { BenchTarget } from './bench-processes.js';
import { runFixedRate } from './fixed-rate-load.js';
import { untilQuiet } from './saturation-load.js';

interface RateStep {
  rate: number;
  achievedRate: number;
  p99Ms: number;
  directP99Ms: number;
  addedP99Ms: number;
  failures: number;
  skipped: number;
  ok: boolean;
}

export interface SustainedRateResult {
  /** The added p99 a rate may cost at most (ms). */
  limitMs: number;
  /** The highest rate tried that kept added p99 within the limit with no failure (req/s); 0 if none. */
  highestRate: number;
  /** Every rate tried, in order. */
  steps: RateStep[];
}

export interface SustainedRatePlan {
  /** The first rate tried (req/s); it doubles while the target keeps up. */
  startRate: number;
  /** Never tried below this: a target that misses it is reported at 0. */
  minRate: number;
  /** Never tried above this (the load generator's own limit on this machine). */
  maxRate: number;
  /** Halvings of the (geometric) interval between the last rate kept up and the first missed. */
  bisections: number;
  /** Seconds of load per step, on direct and again on the target. */
  stepSeconds: number;
  limitMs: number;
}

/**
 * The highest rate at which the gateway's added p99 stays within `limitMs`: open-loop load at
 * evenly spaced requests (fixed-rate-load.ts), doubling from `startRate` while the target keeps
 * up (halving down to `minRate` when it misses the first), then bisecting (geometrically) between the last rate kept up and the first one missed.
 * Each step measures direct at the same rate right before the target, so "added" compares two
 * figures from the same moment. A step misses on added p99 above the limit, on any failure, on a
 * request the generator could not send (512 in flight) or on a rate achieved below 90 %.
 */
export async function findSustainedRate(
  target: BenchTarget,
  direct: BenchTarget,
  body: string,
  plan: SustainedRatePlan,
  log: (line: string) => void,
): Promise<SustainedRateResult> {
  const steps: RateStep[] = [];
  const attempt = async (rate: number): Promise<boolean> => {
    const base = await runFixedRate(direct, body, rate, plan.stepSeconds);
    const own = await runFixedRate(target, body, rate, plan.stepSeconds);
    // A missed step leaves a queue behind; the next one must not start inside it.
    if (target.pid) await untilQuiet(target.pid);
    const addedP99Ms = own.latency.p99 - base.latency.p99;
    const ok =
      Number.isFinite(addedP99Ms) &&
      addedP99Ms <= plan.limitMs &&
      own.failures === 0 &&
      own.skipped === 0 &&
      own.achievedRate >= 0.9 * rate;
    steps.push({
      rate,
      achievedRate: own.achievedRate,
      p99Ms: own.latency.p99,
      directP99Ms: base.latency.p99,
      addedP99Ms,
      failures: own.failures,
      skipped: own.skipped,
      ok,
    });
    log(
      `    ${rate} req/s: added p99 ${addedP99Ms.toFixed(2)} ms (${own.latency.p99.toFixed(2)} − ${base.latency.p99.toFixed(2)}), achieved ${Math.round(own.achievedRate)}${own.failures ? `, ${own.failures} failed` : ''}${own.skipped ? `, ${own.skipped} not sent` : ''} → ${ok ? 'kept up' : 'missed'}`,
    );
    return ok;
  };
  let kept = 0;
  let missed = 0;
  if (await attempt(plan.startRate)) {
    kept = plan.startRate;
    for (let rate = plan.startRate * 2; rate <= plan.maxRate; rate *= 2) {
      if (await attempt(rate)) kept = rate;
      else {
        missed = rate;
        break;
      }
    }
  } else {
    // Missed the first rate: halve down to the lowest one worth measuring.
    missed = plan.startRate;
    for (let rate = Math.round(plan.startRate / 2); rate >= plan.minRate; rate = Math.round(rate / 2)) {
      if (await attempt(rate)) {
        kept = rate;
        break;
      }
      missed = rate;
    }
  }
  if (kept > 0 && missed > 0)
    for (let index = 0; index < plan.bisections; index++) {
      const rate = Math.round(Math.sqrt(kept * missed));
      if (rate <= kept || rate >= missed) break;
      if (await attempt(rate)) kept = rate;
      else missed = rate;
    }
  return { limitMs: plan.limitMs, highestRate: kept, steps };
}

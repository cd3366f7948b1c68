import autocannon from 'autocannon';
import type { BenchTarget } from './bench-processes.js';
import { readProcessStats } from './process-stats.js';
import { median } from './percentiles.js';

export interface SaturationResult {
  connections: number;
  durationSeconds: number;
  /** Successful (2xx) answers per second. */
  requestsPerSecond: number;
  successes: number;
  failures: number;
  /** Gateway CPU per successful request, from the kernel's accounting of its process (µs). */
  cpuMicrosPerRequest: number | null;
  /** Every round's own result when this one is their median (see BenchPlan.rounds). */
  rounds?: SaturationResult[];
}

/**
 * The rounds of one target as one result: throughput and CPU per request are each the median
 * over the rounds (one slow round moves neither); counts are totals.
 */
export function medianOfRounds(rounds: SaturationResult[]): SaturationResult {
  if (rounds.length === 1) return rounds[0]!;
  const cpu = rounds.map((round) => round.cpuMicrosPerRequest).filter((micros): micros is number => micros !== null);
  return {
    connections: rounds[0]!.connections,
    durationSeconds: rounds.reduce((sum, round) => sum + round.durationSeconds, 0),
    requestsPerSecond: median(rounds.map((round) => round.requestsPerSecond)),
    successes: rounds.reduce((sum, round) => sum + round.successes, 0),
    failures: rounds.reduce((sum, round) => sum + round.failures, 0),
    cpuMicrosPerRequest: cpu.length === rounds.length ? median(cpu) : null,
    rounds,
  };
}

const QUIET_WINDOW_MS = 250;
/** At most this much CPU in a window (2 % of a core) counts as quiet. */
const QUIET_CPU_MICROS = QUIET_WINDOW_MS * 1000 * 0.02;
const QUIET_MAX_WAIT_MS = 10_000;

/** Resolves once the process has used (almost) no CPU for a window, or after QUIET_MAX_WAIT_MS. */
export async function untilQuiet(pid: number): Promise<void> {
  const deadline = performance.now() + QUIET_MAX_WAIT_MS;
  let before = readProcessStats(pid).cpuMicros;
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, QUIET_WINDOW_MS));
    const now = readProcessStats(pid).cpuMicros;
    if (now - before <= QUIET_CPU_MICROS) return;
    before = now;
  }
}

/** Closed-loop load with autocannon: `connections` clients sending back to back for `durationSeconds`. */
export async function runSaturation(
  target: BenchTarget,
  body: string,
  connections: number,
  durationSeconds: number,
): Promise<SaturationResult> {
  const before = target.pid ? readProcessStats(target.pid) : undefined;
  const result = await autocannon({
    url: `${target.origin}${target.path}`,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...target.headers },
    body,
    connections,
    duration: durationSeconds,
    // Each answer is read in full; a stream counts once it ends.
    timeout: 30,
  });
  // Work a run leaves behind (a batch still to write, streams whose clients left but whose
  // upstreams are still read) is that run's cost, and must not slow down the next run.
  if (target.pid) await untilQuiet(target.pid);
  const after = target.pid ? readProcessStats(target.pid) : undefined;
  const successes = result['2xx'];
  const failures = result.non2xx + result.errors + result.timeouts;
  return {
    connections,
    durationSeconds: result.duration,
    requestsPerSecond: successes / result.duration,
    successes,
    failures,
    cpuMicrosPerRequest: before && after && successes > 0 ? (after.cpuMicros - before.cpuMicros) / successes : null,
  };
}

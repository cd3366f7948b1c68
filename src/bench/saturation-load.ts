import autocannon from 'autocannon';
import type { BenchTarget } from './bench-processes.js';
import { readProcessStats } from './process-stats.js';

export interface SaturationResult {
  connections: number;
  durationSeconds: number;
  /** Successful (2xx) answers per second. */
  requestsPerSecond: number;
  successes: number;
  failures: number;
  /** Gateway CPU per successful request, from the kernel's accounting of its process (µs). */
  cpuMicrosPerRequest: number | null;
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

import { Pool } from 'undici';
import type { BenchTarget } from './bench-processes.js';
import { summarize, type LatencySummary } from './percentiles.js';

export interface FixedRateResult {
  targetRate: number;
  achievedRate: number;
  /** Latency of each successful request, send to last byte, in milliseconds. */
  latency: LatencySummary;
  failures: number;
  /** Requests not sent because `maxInFlight` were already waiting (the target fell behind). */
  skipped: number;
}

/**
 * Open-loop load at a steady rate. autocannon's own rate limit fires each second's quota in a
 * burst at the top of the second, which measures queueing rather than the cost of a request,
 * so requests are spaced evenly here: every millisecond or so, send what is due by now.
 */
export async function runFixedRate(
  target: BenchTarget,
  body: string,
  rate: number,
  durationSeconds: number,
  maxInFlight = 512,
  /** Each answer's send time (µs, the machine's monotonic clock, as `process.hrtime`) and latency (ms): the tail probe's. */
  onAnswer?: (sentAtMicros: number, latencyMs: number, status: number) => void,
): Promise<FixedRateResult> {
  const pool = new Pool(target.origin, { connections: 256, pipelining: 1, keepAliveTimeout: 30_000 });
  const headers = { 'content-type': 'application/json', ...target.headers };
  const latencies: number[] = [];
  const pending = new Set<Promise<void>>();
  let failures = 0;
  let skipped = 0;
  let sent = 0;

  // performance.now() + this = the monotonic clock in ms: what onAnswer's send times are on.
  const monotonicOffsetMs = Number(process.hrtime.bigint() / 1000n) / 1000 - performance.now();
  const send = () => {
    const startedAt = performance.now();
    const request = pool
      .request({ path: target.path, method: 'POST', headers, body })
      .then(async (response) => {
        await response.body.arrayBuffer();
        const latency = performance.now() - startedAt;
        onAnswer?.(Math.round((startedAt + monotonicOffsetMs) * 1000), latency, response.statusCode);
        if (response.statusCode === 200) latencies.push(latency);
        else failures += 1;
      })
      .catch(() => {
        failures += 1;
      })
      .finally(() => pending.delete(request));
    pending.add(request);
  };

  const started = performance.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const elapsedSeconds = (performance.now() - started) / 1000;
      if (elapsedSeconds >= durationSeconds) return resolve();
      const due = Math.floor(elapsedSeconds * rate);
      while (sent < due) {
        sent += 1;
        if (pending.size >= maxInFlight) skipped += 1;
        else send();
      }
      setTimeout(tick, 1);
    };
    tick();
  });
  const elapsedSeconds = (performance.now() - started) / 1000;
  // The grace timer is cleared so a caller's process can exit as soon as its work is done.
  let grace: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled([...pending]),
    new Promise((resolve) => {
      grace = setTimeout(resolve, 30_000);
    }),
  ]);
  clearTimeout(grace);
  await pool.destroy();
  return {
    targetRate: rate,
    achievedRate: latencies.length / elapsedSeconds,
    latency: summarize(latencies),
    failures,
    skipped,
  };
}

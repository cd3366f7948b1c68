import { Client } from 'undici';
import type { BenchTarget } from './bench-processes.js';
import { percentile } from './percentiles.js';

export interface OneAtATimeResult {
  /** Requests measured on each of the two (target and direct), after the warm-up. */
  samples: number;
  /** The target's latency, send to last byte, in microseconds. */
  p50Micros: number;
  p99Micros: number;
  /** Direct's, measured in the same interleaved run. */
  directP50Micros: number;
  directP99Micros: number;
  /** The target's percentile minus direct's (a difference of percentiles). */
  addedP50Micros: number;
  addedP99Micros: number;
  failures: number;
}

/** One request after another on one keep-alive connection; the time of each, in microseconds. */
async function sequential(client: Client, target: BenchTarget, body: string, count: number, into?: number[]) {
  const headers = { 'content-type': 'application/json', ...target.headers };
  let failures = 0;
  for (let index = 0; index < count; index++) {
    const started = process.hrtime.bigint();
    try {
      const response = await client.request({ path: target.path, method: 'POST', headers, body });
      await response.body.arrayBuffer();
      const micros = Number(process.hrtime.bigint() - started) / 1000;
      if (response.statusCode === 200) into?.push(micros);
      else failures += 1;
    } catch {
      failures += 1;
    }
  }
  return failures;
}

/**
 * The figure independent comparisons publish: concurrency 1, keep-alive, what the gateway adds to
 * one request when nothing else is in flight. The machine's speed drifts over seconds (a shared
 * VM), so the target and direct are measured in alternating blocks of `block` requests and the
 * target's percentiles are compared with direct's from the same run, never from another minute.
 */
export async function measureOneAtATime(
  target: BenchTarget,
  direct: BenchTarget,
  body: string,
  options: { warmup: number; samples: number; block?: number },
): Promise<OneAtATimeResult> {
  const block = options.block ?? 50;
  const own = new Client(target.origin, { pipelining: 1, keepAliveTimeout: 60_000 });
  const upstream = new Client(direct.origin, { pipelining: 1, keepAliveTimeout: 60_000 });
  try {
    await sequential(own, target, body, options.warmup);
    await sequential(upstream, direct, body, options.warmup);
    const ours: number[] = [];
    const directs: number[] = [];
    let failures = 0;
    for (let done = 0; done < options.samples; done += block) {
      const count = Math.min(block, options.samples - done);
      failures += await sequential(own, target, body, count, ours);
      await sequential(upstream, direct, body, count, directs);
    }
    const p50 = percentile(ours, 0.5);
    const p99 = percentile(ours, 0.99);
    const directP50 = percentile(directs, 0.5);
    const directP99 = percentile(directs, 0.99);
    return {
      samples: ours.length,
      p50Micros: p50,
      p99Micros: p99,
      directP50Micros: directP50,
      directP99Micros: directP99,
      addedP50Micros: p50 - directP50,
      addedP99Micros: p99 - directP99,
      failures,
    };
  } finally {
    await Promise.all([own.destroy(), upstream.destroy()]);
  }
}

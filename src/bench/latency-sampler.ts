/** Latency figures of one endpoint, in milliseconds. */
export interface LatencyFigures {
  samples: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

/** The p-th percentile (0 < p ≤ 1) of sorted samples: the smallest sample with at least p of them at or below it. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new RangeError('no samples');
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

const round = (value: number) => Math.round(value * 100) / 100;

function summarize(samples: number[]): LatencyFigures {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    samples: sorted.length,
    p50: round(percentile(sorted, 0.5)),
    p99: round(percentile(sorted, 0.99)),
    mean: round(sorted.reduce((sum, value) => sum + value, 0) / sorted.length),
    max: round(sorted[sorted.length - 1]),
  };
}

/**
 * Calls a URL `warmup` times unmeasured, then `iterations` times one after another, timing each
 * call from request to the last byte of the body. One call at a time: the figure is the latency of
 * one call, not a throughput under contention. A non-200 answer fails the benchmark.
 */
export async function sampleLatency(
  url: string,
  options: { warmup: number; iterations: number },
): Promise<LatencyFigures> {
  const call = async () => {
    const started = performance.now();
    const response = await fetch(url);
    const body = await response.arrayBuffer();
    const elapsed = performance.now() - started;
    if (response.status !== 200)
      throw new Error(`${url} answered ${response.status}: ${Buffer.from(body).toString('utf8').slice(0, 300)}`);
    return elapsed;
  };
  for (let index = 0; index < options.warmup; index++) await call();
  const samples: number[] = [];
  for (let index = 0; index < options.iterations; index++) samples.push(await call());
  return summarize(samples);
}

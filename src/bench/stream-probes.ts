import { Pool } from 'undici';
import type { BenchTarget } from './bench-processes.js';
import { summarize, type LatencySummary } from './percentiles.js';
import { readProcessStats } from './process-stats.js';

/** The first chunk that carries text: `"content":"` followed by something other than the closing quote. */
const FIRST_TOKEN = /"content":"[^"]/;

interface StreamRun {
  /** Milliseconds from sending to the first content token, or null if none came. */
  firstTokenMs: number | null;
  /** SSE `data:` events in the whole answer. */
  events: number;
  ok: boolean;
}

/** One streamed request read to the end; `onFirstToken` fires when the first content token arrives. */
async function streamOnce(
  pool: Pool,
  target: BenchTarget,
  body: string,
  onFirstToken?: () => void,
): Promise<StreamRun> {
  const startedAt = performance.now();
  let firstTokenMs: number | null = null;
  let events = 0;
  let carry = '';
  try {
    const response = await pool.request({
      path: target.path,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...target.headers },
      body,
    });
    for await (const part of response.body) {
      // Whole events only (they end with a blank line); the unfinished tail waits for the next read.
      const blocks = (carry + (part as Buffer).toString('utf8')).split('\n\n');
      carry = blocks.pop() ?? '';
      for (const block of blocks) {
        if (block.startsWith('data: ') || block.includes('\ndata: ')) events += 1;
        if (firstTokenMs === null && FIRST_TOKEN.test(block)) {
          firstTokenMs = performance.now() - startedAt;
          onFirstToken?.();
        }
      }
    }
    return { firstTokenMs, events, ok: response.statusCode === 200 };
  } catch {
    return { firstTokenMs, events, ok: false };
  }
}

export interface FirstTokenResult {
  streams: number;
  concurrency: number;
  firstToken: LatencySummary;
  /** data: events in one answer (content chunks plus role, finish, usage and [DONE]). */
  eventsPerStream: number;
  failures: number;
}

/** Time to first token over `total` streams, `concurrency` at a time. */
export async function measureFirstToken(
  target: BenchTarget,
  body: string,
  total: number,
  concurrency: number,
): Promise<FirstTokenResult> {
  const pool = new Pool(target.origin, { connections: concurrency, pipelining: 1 });
  const samples: number[] = [];
  let failures = 0;
  let eventsPerStream = 0;
  let next = 0;
  const worker = async () => {
    while (next < total) {
      next += 1;
      const run = await streamOnce(pool, target, body);
      if (run.ok && run.firstTokenMs !== null) {
        samples.push(run.firstTokenMs);
        eventsPerStream = Math.max(eventsPerStream, run.events);
      } else failures += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await pool.destroy();
  return { streams: total, concurrency, firstToken: summarize(samples), eventsPerStream, failures };
}

export interface OpenStreamsResult {
  requested: number;
  /** The most streams that had received a token and not yet ended, at one time. */
  peakOpen: number;
  rssBeforeBytes: number;
  /** Highest resident memory sampled while streams were open. */
  peakRssBytes: number;
  failures: number;
}

/** Opens `count` slow streams at once and samples the target's resident memory while they are open. */
export async function measureOpenStreams(
  target: BenchTarget,
  body: string,
  count: number,
): Promise<OpenStreamsResult | null> {
  if (!target.pid) return null;
  const pid = target.pid;
  const rssBeforeBytes = readProcessStats(pid).rssBytes;
  const pool = new Pool(target.origin, { connections: count, pipelining: 1 });
  let open = 0;
  let peakOpen = 0;
  let peakRssBytes = rssBeforeBytes;
  const sample = () => {
    try {
      if (open > 0) peakRssBytes = Math.max(peakRssBytes, readProcessStats(pid).rssBytes);
    } catch {
      // The process may be gone; the probe's failures say so.
    }
  };
  const sampler = setInterval(sample, 50);
  const runs = await Promise.all(
    Array.from({ length: count }, () =>
      streamOnce(pool, target, body, () => {
        open += 1;
        peakOpen = Math.max(peakOpen, open);
        if (open === count) sample();
      }).then((run) => {
        if (run.firstTokenMs !== null) open -= 1;
        return run;
      }),
    ),
  );
  clearInterval(sampler);
  await pool.destroy();
  return { requested: count, peakOpen, rssBeforeBytes, peakRssBytes, failures: runs.filter((run) => !run.ok).length };
}

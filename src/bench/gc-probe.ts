/**
 * The GC probe: what one gateway build costs per request in CPU and in V8's garbage collector,
 * at a fixed rate of whole chat answers (docs/benchmarks.md, "the GC probe").
 *
 *   node dist/bench/gc-probe.js sqlite|sqlite-off|pg|pg-off [--rate 400] [--seconds 8] [--warmup 4]
 *     [--log FILE] [-- extra node flags for the gateway, e.g. --no-allocation-site-pretenuring]
 *
 * It starts the fake upstream and one gateway as the benchmark does (same environment, the shipped
 * GATEWAY_NODE_FLAGS) plus `--trace-gc-nvp` and the extra flags, warms up, and over the measured
 * window prints one JSON line: the gateway's CPU per request (/proc, all threads, so the GC's helper
 * threads too), scavenges and mark-compacts per 10k requests, and bytes allocated, surviving a
 * scavenge and promoted to the old generation per request. One run a call: alternate variants
 * from the shell. --log keeps the gateway's whole stdout (e.g. with --trace-pretenuring).
 */
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { GATEWAY_NODE_FLAGS } from '../cli/gateway-node-flags.js';
import { BENCH_MODELS, chatBody } from './bench-models.js';
import { startUpstream } from './bench-processes.js';
import { openTarget, type TargetId } from './bench-targets.js';
import { runFixedRate } from './fixed-rate-load.js';
import { parseGcNvpLine, sumGcEvents, type GcEvent } from './gc-trace.js';
import { readProcessStats } from './process-stats.js';

const TARGETS: Record<string, Exclude<TargetId, 'direct' | 'floor' | 'portkey'>> = {
  sqlite: 'gateway-sqlite',
  'sqlite-off': 'gateway-sqlite-off',
  pg: 'gateway-postgres',
  'pg-off': 'gateway-postgres-off',
};

const USAGE =
  'usage: gc-probe.js sqlite|sqlite-off|pg|pg-off [--rate N] [--seconds N] [--warmup N] [--log FILE] [-- node flags]';

/** One line saying what was wrong and the usage, exit 2: a stack trace tells a person nothing here. */
function usageError(problem?: string): never {
  console.error(problem ? `${problem}\n${USAGE}` : USAGE);
  process.exit(2);
}

const OPTIONS = {
  allowPositionals: true,
  options: {
    rate: { type: 'string', default: '400' },
    seconds: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '4' },
    log: { type: 'string' },
    help: { type: 'boolean' },
  },
} as const;

function parseCommandLine(): ReturnType<typeof parseArgs<typeof OPTIONS>> {
  try {
    return parseArgs(OPTIONS);
  } catch (error) {
    return usageError((error as Error).message.split('. ')[0]);
  }
}

const { values, positionals } = parseCommandLine();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const [targetName, ...extraFlags] = positionals;
const targetId = TARGETS[targetName ?? ''] ?? usageError(targetName ? `unknown target: ${targetName}` : undefined);
for (const name of ['rate', 'seconds', 'warmup'] as const)
  if (!(Number(values[name]) >= 0)) usageError(`--${name} must be a number ≥ 0, not ${values[name]}`);
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const warmupSeconds = Number(values.warmup);

const events: GcEvent[] = [];
const log = values.log ? createWriteStream(values.log) : undefined;
let partial = '';
const onOutput = (chunk: Buffer) => {
  log?.write(chunk);
  const lines = (partial + chunk.toString()).split('\n');
  partial = lines.pop() ?? '';
  for (const line of lines) {
    const event = parseGcNvpLine(line);
    if (event) events.push(event);
  }
};

const scratch = join(tmpdir(), `gc-probe-${process.pid}`);
mkdirSync(scratch, { recursive: true });
const upstream = await startUpstream({ firstTokenGapMs: 5, longOpenGapMs: 20 });
const flags = [...GATEWAY_NODE_FLAGS, '--trace-gc-nvp', ...extraFlags];
const opened = await openTarget(targetId, {
  upstreamUrl: upstream.url,
  scratch,
  gatewayNodeFlags: flags,
  gatewayOutput: onOutput,
});
try {
  const { target } = opened;
  const body = chatBody(BENCH_MODELS.fast, false);
  if (warmupSeconds > 0) await runFixedRate(target, body, rate, warmupSeconds);
  const loadBefore = loadavg()[0]!;
  const firstEvent = events.length;
  const cpuBefore = readProcessStats(target.pid!).cpuMicros;
  const result = await runFixedRate(target, body, rate, seconds);
  const after = readProcessStats(target.pid!);
  // The trace's last lines of the window may still be in the pipe.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const totals = sumGcEvents(events.slice(firstEvent));
  const requests = result.latency.count;
  const perRequest = (bytes: number) => Math.round(bytes / requests);
  const per10k = (count: number) => Number(((count * 10_000) / requests).toFixed(1));
  console.log(
    JSON.stringify({
      target: targetName,
      flags: extraFlags.join(' '),
      rate,
      seconds,
      requests,
      failures: result.failures + result.skipped,
      p50Ms: Number(result.latency.p50.toFixed(2)),
      p99Ms: Number(result.latency.p99.toFixed(2)),
      cpuMicrosPerRequest: Number(((after.cpuMicros - cpuBefore) / requests).toFixed(1)),
      rssMb: Math.round(after.rssBytes / 1e6),
      scavengesPer10k: per10k(totals.scavenges),
      markCompactsPer10k: per10k(totals.markCompacts),
      pauseMsPer10k: Number(((totals.pauseMs * 10_000) / requests).toFixed(1)),
      allocatedBytesPerRequest: perRequest(totals.allocated),
      survivedBytesPerRequest: perRequest(totals.survived),
      promotedBytesPerRequest: perRequest(totals.promoted),
      promotedByScavengesPerRequest: perRequest(totals.promotedByScavenges),
      load: [loadBefore, loadavg()[0]!].map((value) => Number(value.toFixed(2))),
    }),
  );
} finally {
  await opened.close();
  await upstream.stop();
  log?.end();
  rmSync(scratch, { recursive: true, force: true });
}

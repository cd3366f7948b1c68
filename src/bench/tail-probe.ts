/**
 * The tail probe: what each slow request of the fixed-rate figure waited for (docs/benchmarks.md,
 * "the fixed rate's tail").
 *
 *   node dist/bench/tail-probe.js sqlite|pg|floor [--rate 500] [--seconds 6] [--slow-ms 5]
 *     [--rounds 0] [--one-at-a-time] [--cpu-prof DIR] [--out FILE] [-- extra node flags]
 *
 * It starts the fake upstream and one gateway as the benchmark does, with tail-probe-preload.js
 * loaded into it (the gateway's loop stalls, collections and slow timer callbacks, on the machine's
 * monotonic clock), warms up as the benchmark does (2 s of whole answers and 2 s of streams at 32
 * connections; `--rounds N` adds the saturation rounds, `--one-at-a-time` that measure, so the
 * gateway is in the state the full benchmark leaves it in), then sends the fixed rate and times
 * every answer. Every answer slower than --slow-ms is set against what overlapped it: the
 * gateway's loop stalls and collections, its slow timers, the probe's own stalls (a late sender
 * or reader inflates a latency without the gateway), and with --cpu-prof what the gateway's main
 * thread was running (the profile's samples inside the request's window). One JSON summary line;
 * --out keeps everything.
 */
import { readdirSync, readFileSync, rmSync, mkdirSync, writeFileSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PerformanceObserver } from 'node:perf_hooks';
import { GATEWAY_NODE_FLAGS } from '../cli/gateway-node-flags.js';
import { BENCH_MODELS, chatBody } from './bench-models.js';
import { directTarget, startUpstream } from './bench-processes.js';
import { openTarget } from './bench-targets.js';
import { runFixedRate } from './fixed-rate-load.js';
import { measureOneAtATime } from './one-at-a-time.js';
import { runSaturation } from './saturation-load.js';
import { summarizeProfileWindows, type ProfileWindowSummary } from './tail-profile.js';

interface Span {
  start: number;
  duration: number;
  label: string;
  onCpu?: number;
  waiting?: number;
}
interface GatewayRecord {
  loopDelayMs: { p50: number; p99: number; max: number };
  stalls: Span[];
  collections: Span[];
  slowTimers: Span[];
  connects: number[];
}

const TARGETS = { sqlite: 'gateway-sqlite', pg: 'gateway-postgres', floor: 'floor' } as const;
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rate: { type: 'string', default: '500' },
    seconds: { type: 'string', default: '6' },
    'slow-ms': { type: 'string', default: '5' },
    rounds: { type: 'string', default: '0' },
    'one-at-a-time': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    out: { type: 'string' },
  },
});
const [name, ...extraFlags] = positionals;
const targetId = TARGETS[name as keyof typeof TARGETS];
if (!targetId) {
  console.error(
    'usage: tail-probe.js sqlite|pg|floor [--rate N] [--seconds N] [--slow-ms N] [--rounds N] [--one-at-a-time] [--cpu-prof DIR] [--out FILE] [-- node flags]',
  );
  process.exit(2);
}
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const slowMs = Number(values['slow-ms']);

/** CPU ms of each of a process's threads by name (/proc/<pid>/task/<tid>/stat, user + system). */
function threadCpu(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'latin1');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]);
      byName.set(name, (byName.get(name) ?? 0) + ticks * 10);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return byName;
}

const nowMicros = () => Number(process.hrtime.bigint() / 1000n);
// The probe's own stalls and collections: a late sender or reader is latency the gateway did not add.
const ownStalls: Span[] = [];
const ownCollections: Span[] = [];
const perfOffsetMicros = nowMicros() - performance.now() * 1000;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries())
    ownCollections.push({
      start: Math.round(entry.startTime * 1000 + perfOffsetMicros),
      duration: Math.round(entry.duration * 1000),
      label: 'gc',
    });
}).observe({ entryTypes: ['gc'] });
let lastTick = nowMicros();
let ticking = true;
const tick = () => {
  const now = nowMicros();
  if (now - lastTick > 3000) ownStalls.push({ start: lastTick, duration: now - lastTick, label: 'probe loop' });
  lastTick = now;
  if (ticking) setTimeout(tick, 1);
};

const scratch = join(tmpdir(), `tail-probe-${process.pid}`);
mkdirSync(scratch, { recursive: true });
const recordFile = join(scratch, 'gateway-record.json');
process.env.TAIL_PROBE_OUT = recordFile;
const preload = join(dirname(fileURLToPath(import.meta.url)), 'tail-probe-preload.js');
const profileDir = values['cpu-prof'];
const upstream = await startUpstream({ firstTokenGapMs: 5, longOpenGapMs: 20 });
const opened = await openTarget(targetId, {
  upstreamUrl: upstream.url,
  scratch,
  gatewayNodeFlags: [...GATEWAY_NODE_FLAGS, '--import', preload, ...extraFlags],
  cpuProfileDir: profileDir,
});
const { target } = opened;
const whole = chatBody(BENCH_MODELS.fast, false);
const answers: { sent: number; latencyMs: number; status: number }[] = [];
let result: Awaited<ReturnType<typeof runFixedRate>>;
let record: GatewayRecord | undefined;
let window: { start: number; end: number };
let threadsBefore = new Map<string, number>();
/** CPU ms each of the gateway's threads (by name) used over the fixed rate. */
const threadMs: Record<string, number> = {};
const loadBefore = loadavg()[0]!;
try {
  // As the benchmark warms a target up (bench-runner.ts), then what the full plan runs before the fixed rate.
  await runSaturation(target, whole, 32, 2);
  await runSaturation(target, chatBody(BENCH_MODELS.fast, true), 32, 2);
  for (let round = 0; round < Number(values.rounds); round++) {
    await runSaturation(target, whole, 32, 3);
    await runSaturation(target, chatBody(BENCH_MODELS.fast, true), 32, 1.5);
  }
  if (values['one-at-a-time'])
    await measureOneAtATime(target, directTarget(upstream), whole, { warmup: 300, samples: 2000 });
  tick();
  threadsBefore = target.pid ? threadCpu(target.pid) : new Map();
  window = { start: nowMicros(), end: 0 };
  result = await runFixedRate(target, whole, rate, seconds, 512, (sent, latencyMs, status) =>
    answers.push({ sent, latencyMs, status }),
  );
  window.end = nowMicros();
  ticking = false;
  if (target.pid)
    for (const [thread, ms] of threadCpu(target.pid)) threadMs[thread] = ms - (threadsBefore.get(thread) ?? 0);
  if (target.pid && targetId !== 'floor') {
    process.kill(target.pid, 'SIGUSR2');
    await new Promise((resolve) => setTimeout(resolve, 500));
    record = JSON.parse(readFileSync(recordFile, 'utf8')) as GatewayRecord;
  }
} finally {
  await opened.close();
  await upstream.stop();
}

const overlapping = (spans: Span[] | undefined, from: number, to: number) =>
  (spans ?? []).filter((span) => span.start < to && span.start + span.duration > from);
const overlapMicros = (spans: Span[], from: number, to: number) =>
  spans.reduce((sum, span) => sum + Math.min(to, span.start + span.duration) - Math.max(from, span.start), 0);

const slow = answers.filter((answer) => answer.latencyMs > slowMs);
let profile: string | undefined;
if (profileDir) {
  // The measured gateway is the last process to write a profile (the preparing one wrote first).
  const files = readdirSync(profileDir)
    .filter((file) => file.endsWith('.cpuprofile'))
    .map((file) => join(profileDir, file))
    .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
  profile = files.at(-1);
}
const profileWindows: ProfileWindowSummary[] = profile
  ? summarizeProfileWindows(
      JSON.parse(readFileSync(profile, 'utf8')),
      slow.map((answer) => ({ start: answer.sent, end: answer.sent + answer.latencyMs * 1000 })),
    )
  : [];

const causes = slow.map((answer, index) => {
  const from = answer.sent;
  const to = answer.sent + answer.latencyMs * 1000;
  const gc = overlapping(record?.collections, from, to);
  const stalls = overlapping(record?.stalls, from, to);
  const timers = overlapping(record?.slowTimers, from, to);
  const own = [...overlapping(ownStalls, from, to), ...overlapping(ownCollections, from, to)];
  return {
    sentMs: Math.round((from - window.start) / 100) / 10,
    latencyMs: Number(answer.latencyMs.toFixed(2)),
    status: answer.status,
    gatewayGcMs: Number((overlapMicros(gc, from, to) / 1000).toFixed(2)),
    gcKinds: [...new Set(gc.map((span) => span.label))],
    gatewayStallMs: Number((Math.max(0, ...stalls.map((span) => span.duration)) / 1000).toFixed(2)),
    // Of the stalls overlapping it, the main thread's time on a CPU and runnable but not running.
    gatewayStallOnCpuMs: Number((stalls.reduce((sum, span) => sum + (span.onCpu ?? 0), 0) / 1000).toFixed(2)),
    gatewayStallWaitingMs: Number((stalls.reduce((sum, span) => sum + (span.waiting ?? 0), 0) / 1000).toFixed(2)),
    slowTimers: timers.map((span) => `${(span.duration / 1000).toFixed(1)} ms ${span.label.slice(0, 100)}`),
    probeStallMs: Number((overlapMicros(own, from, to) / 1000).toFixed(2)),
    mainThread: profileWindows[index],
  };
});

const within = (span: Span) => span.start >= window.start && span.start <= window.end;
const gatewayCollections = (record?.collections ?? []).filter(within);
const summary = {
  target: name,
  flags: extraFlags.join(' '),
  rate,
  seconds,
  answers: answers.length,
  failures: result.failures + result.skipped,
  p50Ms: Number(result.latency.p50.toFixed(2)),
  p99Ms: Number(result.latency.p99.toFixed(2)),
  maxMs: Number(result.latency.max.toFixed(2)),
  slow: slow.length,
  slowWithGatewayGc: causes.filter((cause) => cause.gatewayGcMs >= 1).length,
  slowWithGatewayStall: causes.filter((cause) => cause.gatewayStallMs > 0).length,
  slowWithSlowTimer: causes.filter((cause) => cause.slowTimers.length > 0).length,
  slowWithProbeStall: causes.filter((cause) => cause.probeStallMs >= 1).length,
  slowInFirstSecond: causes.filter((cause) => cause.sentMs < 1000).length,
  gatewayLoopDelayMs: record?.loopDelayMs,
  gatewayStalls: (record?.stalls ?? []).filter(within).length,
  gatewayStallMsMax: Math.max(0, ...(record?.stalls ?? []).filter(within).map((span) => span.duration / 1000)),
  // All the window's stalls: ms in all, of it on a CPU, of it runnable but waiting for a CPU.
  gatewayStallMs: ['duration', 'onCpu', 'waiting'].map((key) =>
    Math.round(
      (record?.stalls ?? [])
        .filter(within)
        .reduce((sum, span) => sum + ((span as unknown as Record<string, number>)[key] ?? 0), 0) / 1000,
    ),
  ),
  gatewayCollections: Object.fromEntries(
    [...new Set(gatewayCollections.map((span) => span.label))].map((kind) => {
      const ofKind = gatewayCollections.filter((span) => span.label === kind);
      return [kind, { count: ofKind.length, maxMs: Math.max(...ofKind.map((span) => span.duration)) / 1000 }];
    }),
  ),
  probeStalls: ownStalls.filter(within).length,
  // Outgoing connections the gateway opened in the window, by second.
  gatewayConnectsBySecond: Array.from(
    { length: Math.ceil(seconds) },
    (_, second) =>
      (record?.connects ?? []).filter(
        (at) => at >= window.start + second * 1e6 && at < window.start + (second + 1) * 1e6,
      ).length,
  ),
  gatewayThreadCpuMs: threadMs,
  load: [loadBefore, loadavg()[0]!].map((value) => Number(value.toFixed(2))),
};
console.log(JSON.stringify(summary));
if (values.out)
  writeFileSync(
    values.out,
    JSON.stringify({ summary, causes, record, ownStalls, ownCollections, window, answers }, null, 1),
  );
rmSync(scratch, { recursive: true, force: true });

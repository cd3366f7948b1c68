/**
 * Loaded into a gateway with `--import` by the tail probe (tail-probe.ts), never by a served
 * gateway. It records, on the machine's monotonic clock (µs, comparable across processes and with
 * a `--cpu-prof` profile's sample times), what can hold a request on the main thread: the event
 * loop's stalls (a 1 ms timer chain; a gap over the threshold is a stall), V8's collections
 * (perf_hooks `gc` entries) and timer callbacks that ran long (the periodic work: flushes, polls,
 * rollups). SIGUSR2 writes it as JSON to TAIL_PROBE_OUT; the process that only prepares the
 * benchmark's store is never asked.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { PerformanceObserver, constants, monitorEventLoopDelay, performance } from 'node:perf_hooks';

const out = process.env.TAIL_PROBE_OUT;
const STALL_MICROS = Number(process.env.TAIL_PROBE_STALL_US ?? 3000);
const SLOW_TIMER_MICROS = 1000;

const nowMicros = () => Number(process.hrtime.bigint() / 1000n);
// perf_hooks times are milliseconds since this process's timeOrigin; this maps them onto hrtime.
const perfOffsetMicros = nowMicros() - performance.now() * 1000;

interface Span {
  start: number;
  duration: number;
  label: string;
  /** A stall's split, from the kernel's schedstat of the main thread: µs on a CPU and µs runnable but waiting for one. */
  onCpu?: number;
  waiting?: number;
}
const stalls: Span[] = [];
const collections: Span[] = [];
const slowTimers: Span[] = [];
/** When the gateway opened an outgoing connection (the upstream, the store, Redis): first-use work. */
const connects: number[] = [];
const originalConnect = Socket.prototype.connect;
Socket.prototype.connect = function (this: Socket, ...args: unknown[]) {
  connects.push(nowMicros());
  return (originalConnect as (...a: unknown[]) => Socket).apply(this, args);
} as typeof Socket.prototype.connect;

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak-callbacks',
};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind ?? -1;
    collections.push({
      start: Math.round(entry.startTime * 1000 + perfOffsetMicros),
      duration: Math.round(entry.duration * 1000),
      label: GC_KINDS[kind] ?? String(kind),
    });
  }
}).observe({ entryTypes: ['gc'] });

const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();

// The main thread's schedstat (ns on a CPU, ns runnable and waiting): whether a stall was work or
// the machine's other processes holding the cores.
const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;
const schedstat = (): [number, number] => {
  try {
    const [onCpu, waiting] = readFileSync(SCHEDSTAT, 'latin1').split(' ').map(Number);
    return [onCpu! / 1000, waiting! / 1000];
  } catch {
    return [0, 0];
  }
};
let last = nowMicros();
let lastSched = schedstat();
const tick = () => {
  const now = nowMicros();
  const sched = schedstat();
  if (now - last > STALL_MICROS)
    stalls.push({
      start: last,
      duration: now - last,
      label: 'loop',
      onCpu: Math.round(sched[0] - lastSched[0]),
      waiting: Math.round(sched[1] - lastSched[1]),
    });
  last = now;
  lastSched = sched;
  originalSetTimeout(tick, 1).unref();
};

// Timer callbacks are wrapped to time their synchronous part; the label (the callback's source,
// cut short) is made only for a slow one.
const originalSetTimeout = globalThis.setTimeout;
const originalSetInterval = globalThis.setInterval;
function timed<A extends unknown[]>(callback: (...args: A) => void): (...args: A) => void {
  return function (this: unknown, ...args: A) {
    const start = nowMicros();
    try {
      callback.apply(this, args);
    } finally {
      const duration = nowMicros() - start;
      if (duration > SLOW_TIMER_MICROS)
        slowTimers.push({ start, duration, label: `${callback.name}: ${String(callback).slice(0, 160)}` });
    }
  };
}
globalThis.setTimeout = ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) =>
  typeof callback === 'function'
    ? originalSetTimeout(timed(callback), ms, ...args)
    : originalSetTimeout(callback, ms, ...args)) as typeof setTimeout;
globalThis.setInterval = ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) =>
  typeof callback === 'function'
    ? originalSetInterval(timed(callback), ms, ...args)
    : originalSetInterval(callback, ms, ...args)) as typeof setInterval;
tick();

process.on('SIGUSR2', () => {
  if (!out) return;
  writeFileSync(
    out,
    JSON.stringify({
      pid: process.pid,
      writtenAt: nowMicros(),
      loopDelayMs: {
        p50: delay.percentile(50) / 1e6,
        p99: delay.percentile(99) / 1e6,
        max: delay.max / 1e6,
      },
      stalls,
      collections,
      slowTimers,
      connects,
    }),
  );
});

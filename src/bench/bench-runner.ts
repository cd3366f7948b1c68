/**
 * One run, one machine, one load generator: the fake upstream alone (the limit), the floor, our
 * gateway on SQLite and on PostgreSQL + Redis (metering on and off), and Portkey's gateway, each
 * under the same plan and never two under load at once. The saturation runs go round the targets
 * `plan.rounds` times (median per target), so the machine's drift falls on every target alike.
 * Writes the results as JSON.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'undici';
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { BenchPlan } from './bench-plan.js';
import { directTarget, startUpstream, type BenchTarget } from './bench-processes.js';
import { computeFigures, renderTable, type TargetResult } from './bench-report.js';
import { isMeteringOff, openTarget, type TargetId } from './bench-targets.js';
import { BENCH_MODELS, chatBody } from './bench-models.js';
import { medianOfRounds, runSaturation, type SaturationResult } from './saturation-load.js';
import { runFixedRate } from './fixed-rate-load.js';
import { measureFirstToken, measureOpenStreams } from './stream-probes.js';
import { measureOneAtATime } from './one-at-a-time.js';
import { findSustainedRate } from './sustained-rate.js';
import { measureStreamChunkCost, renderStreamChunkCost } from './stream-chunk-cost.js';

/** The figures measured once per target, after the saturation rounds (measureAlone). */
export const ALONE_MEASURES = ['one-at-a-time', 'fixed-rate', 'first-token', 'open-streams', 'sustained-rate'] as const;
export type AloneMeasure = (typeof ALONE_MEASURES)[number];

export interface BenchOptions {
  plan: BenchPlan;
  targets: TargetId[];
  outFile: string;
  cpuProfileDir?: string;
  /**
   * Measure only this (after the warm-up, without the saturation rounds): a figure that needs a
   * closer look is run alone and repeated for minutes instead of the whole plan (`--only`).
   */
  only?: AloneMeasure;
  /** Node flags for our gateway instead of its shipped ones (A/B runs, `--semi-space`). */
  gatewayNodeFlags?: readonly string[];
  log: (line: string) => void;
}

/**
 * One whole answer and one stream, each awaited however long it takes: a target has answered
 * before anything is measured. Smoke mode has no warm-up, and on a loaded machine a gateway's
 * first requests (cold code, pools still connecting) can outlast its 0.5 s saturation run, which
 * then counted no answer and produced no figure.
 */
async function firstAnswers(target: BenchTarget): Promise<void> {
  for (const stream of [false, true]) {
    const response = await request(`${target.origin}${target.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...target.headers },
      body: chatBody(BENCH_MODELS.fast, stream),
    });
    await response.body.text();
    if (response.statusCode !== 200)
      throw new Error(`${target.id} answered its first ${stream ? 'stream' : 'request'} with ${response.statusCode}`);
  }
}

/** Lets the JIT compile the hot path before anything is measured. */
async function warmUp(target: BenchTarget, plan: BenchPlan, log: (line: string) => void): Promise<void> {
  await firstAnswers(target);
  if (plan.warmupSeconds <= 0) return;
  log(`  warm-up ${plan.warmupSeconds} s`);
  await runSaturation(target, chatBody(BENCH_MODELS.fast, false), plan.connections, plan.warmupSeconds);
  await runSaturation(target, chatBody(BENCH_MODELS.fast, true), plan.connections, plan.warmupSeconds);
}

/** One round of the saturation runs: whole answers, then streams. */
async function saturationRound(target: BenchTarget, plan: BenchPlan): Promise<[SaturationResult, SaturationResult]> {
  const whole = await runSaturation(
    target,
    chatBody(BENCH_MODELS.fast, false),
    plan.connections,
    plan.saturationSeconds,
  );
  const streams = await runSaturation(
    target,
    chatBody(BENCH_MODELS.fast, true),
    plan.connections,
    plan.streamSaturationSeconds,
  );
  return [whole, streams];
}

/**
 * What is measured once per target, after the rounds: one request at a time, latency at a fixed
 * rate, the highest sustained rate, first token, memory. `direct` is the fake upstream, measured
 * beside the target wherever a figure is "added over direct" and the machine's drift matters.
 */
async function measureAlone(
  target: BenchTarget,
  direct: BenchTarget,
  plan: BenchPlan,
  result: TargetResult,
  log: (line: string) => void,
  only?: AloneMeasure,
): Promise<void> {
  const whole = chatBody(BENCH_MODELS.fast, false);
  const wanted = (measure: AloneMeasure) => only === undefined || only === measure;
  if (target.id !== 'direct' && wanted('one-at-a-time')) {
    log(`  one at a time: ${plan.oneAtATime.samples} requests, interleaved with as many direct`);
    result.oneAtATime = await measureOneAtATime(target, direct, whole, plan.oneAtATime);
    log(
      `    added p50 ${Math.round(result.oneAtATime.addedP50Micros)} µs, p99 ${Math.round(result.oneAtATime.addedP99Micros)} µs`,
    );
  }
  if (wanted('fixed-rate')) {
    log(`  fixed rate: ${plan.fixedRate} req/s, ${plan.fixedRateSeconds} s`);
    result.fixedRate = await runFixedRate(
      target,
      chatBody(BENCH_MODELS.fast, false),
      plan.fixedRate,
      plan.fixedRateSeconds,
    );
  }
  if (wanted('first-token')) {
    log(`  time to first token: ${plan.firstTokenStreams} streams, ${plan.firstTokenConcurrency} at a time`);
    result.firstToken = await measureFirstToken(
      target,
      chatBody(BENCH_MODELS.firstToken, true),
      plan.firstTokenStreams,
      plan.firstTokenConcurrency,
    );
  }
  // The fake upstream's memory is nobody's figure; only gateways are measured holding streams open.
  if (target.pid && target.id !== 'direct' && wanted('open-streams')) {
    log(`  memory: ${plan.openStreams} streams open at once`);
    result.openStreams = await measureOpenStreams(target, chatBody(BENCH_MODELS.longOpen, true), plan.openStreams);
  }
  // Last: its top steps overload the target on purpose.
  if (target.id !== 'direct' && wanted('sustained-rate')) {
    log(`  sustained rate: highest with added p99 ≤ ${plan.sustainedRate.limitMs} ms`);
    result.sustainedRate = await findSustainedRate(target, direct, whole, plan.sustainedRate, log);
  }
}

/**
 * Portkey is started only when the others have stopped and measured on its own (its rounds back
 * to back): started with them and left idle through their rounds, it ran at half its own speed
 * (487 against 877 req/s, CPU per request 2.6 against 1.2 ms) for a reason we did not find, and
 * a reference that is slower than it is would flatter us.
 */
const MEASURED_ALONE: ReadonlySet<string> = new Set(['portkey']);

interface Running {
  result: TargetResult;
  target?: BenchTarget;
  close(): Promise<void>;
  whole: SaturationResult[];
  streams: SaturationResult[];
}

export interface BenchReport {
  results: TargetResult[];
  table: string;
  json: Record<string, unknown>;
  failed: boolean;
}

export async function runBench(options: BenchOptions): Promise<BenchReport> {
  const { plan } = options;
  const began = performance.now();
  // Every line says when it happened, so a slow start-up shows up in the log.
  const log = (line: string) =>
    options.log(`[${((performance.now() - began) / 1000).toFixed(1).padStart(5)} s] ${line}`);
  const startedAt = new Date();
  const loadBefore = loadavg();
  const scratch = join(tmpdir(), `gateway-bench-${process.pid}`);
  mkdirSync(scratch, { recursive: true });
  const upstream = await startUpstream(plan.gaps);
  // The targets are started first and stay up (idle ones cost no CPU), so the saturation rounds
  // can visit them in turn; the rest is measured one target at a time.
  const running: Running[] = [];
  const fail = (entry: Running, error: unknown) => {
    log(`  ${entry.result.id} failed: ${(error as Error).message}`);
    entry.result.error = (error as Error).message;
  };
  const stop = async (entry: Running) => {
    const close = entry.close;
    entry.close = async () => undefined;
    await close().catch((error: unknown) => fail(entry, error));
  };
  const open = async (id: TargetId): Promise<Running> => {
    log(`${id}:`);
    const entry: Running = { result: { id, label: id }, close: async () => undefined, whole: [], streams: [] };
    running.push(entry);
    try {
      const opened =
        id === 'direct'
          ? { target: directTarget(upstream), close: async () => undefined }
          : await openTarget(id, {
              upstreamUrl: upstream.url,
              scratch,
              cpuProfileDir: options.cpuProfileDir,
              gatewayNodeFlags: options.gatewayNodeFlags,
            });
      entry.target = opened.target;
      entry.result.label = opened.target.label;
      entry.close = opened.close;
      await warmUp(opened.target, plan, log);
    } catch (error) {
      fail(entry, error);
    }
    return entry;
  };
  const saturationRounds = async (entries: Running[]) => {
    if (options.only) return;
    for (let round = 0; round < plan.rounds; round++) {
      log(
        `round ${round + 1} of ${plan.rounds}: saturation, ${plan.connections} connections, whole answers ${plan.saturationSeconds} s, streams ${plan.streamSaturationSeconds} s`,
      );
      // Each round starts one target later, so no target is always measured right after the same one.
      const live = entries.filter((entry) => !entry.result.error);
      for (let index = 0; index < live.length; index++) {
        const entry = live[(index + round) % live.length]!;
        log(`  ${entry.result.id}`);
        try {
          const [whole, streams] = await saturationRound(entry.target!, plan);
          entry.whole.push(whole);
          entry.streams.push(streams);
        } catch (error) {
          fail(entry, error);
        }
      }
    }
    for (const entry of entries) {
      if (entry.result.error) continue;
      entry.result.saturation = medianOfRounds(entry.whole);
      entry.result.streamSaturation = medianOfRounds(entry.streams);
    }
  };
  /** Latency, first token and memory, alone on the machine, then the target stops. */
  const finish = async (entry: Running) => {
    // Metering off is the reference of one figure (CPU, metering on ÷ off): the rest is not measured.
    if (!entry.result.error && !isMeteringOff(entry.result.id)) {
      log(`${entry.result.id}:`);
      try {
        await measureAlone(entry.target!, directTarget(upstream), plan, entry.result, log, options.only);
      } catch (error) {
        fail(entry, error);
      }
    }
    await stop(entry);
  };
  try {
    const shared: Running[] = [];
    for (const id of options.targets) if (!MEASURED_ALONE.has(id)) shared.push(await open(id));
    await saturationRounds(shared);
    // Each target is stopped once measured, so what follows runs with fewer processes around.
    for (const entry of shared) if (isMeteringOff(entry.result.id)) await stop(entry);
    for (const entry of shared) await finish(entry);
    for (const id of options.targets) {
      if (!MEASURED_ALONE.has(id)) continue;
      const entry = await open(id);
      await saturationRounds([entry]);
      await finish(entry);
    }
  } finally {
    for (const entry of running) await stop(entry);
    await upstream.stop();
  }
  // In the order asked for, whatever order they were measured in.
  const results = options.targets.map((id) => running.find((entry) => entry.result.id === id)!.result);
  const figures = computeFigures(results);
  // In process, after every target has stopped: the machine is as quiet as this run gets.
  log(`stream chunk cost: ${plan.chunkCost.deltas} deltas, ${plan.chunkCost.rounds} rounds`);
  const streamChunkCost = measureStreamChunkCost(plan.chunkCost.deltas, plan.chunkCost.rounds);
  const table = `${renderTable(figures, results)}\n\n${renderStreamChunkCost(streamChunkCost)}`;
  const json = {
    version: 1,
    mode: plan.mode,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      memoryGb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      loadAverageBefore: loadBefore,
      loadAverageAfter: loadavg(),
    },
    plan,
    metering: {
      on: 'gateway-sqlite, gateway-postgres: usage events; billing.require_credits with a granted balance (a hold per request); a key with rpm/tpm limits',
      off: 'gateway-sqlite-off, gateway-postgres-off: buildApp({ metering: false }), measured for CPU only',
    },
    figures,
    streamChunkCost,
    results,
  };
  mkdirSync(dirname(options.outFile), { recursive: true });
  writeFileSync(options.outFile, `${JSON.stringify(json, null, 2)}\n`);
  return { results, table, json, failed: results.some((result) => result.error) };
}

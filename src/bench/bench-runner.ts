/**
 * One run, one machine, one load generator: the fake upstream alone (the limit), our gateway on
 * SQLite, our gateway on PostgreSQL + Redis, and Portkey's gateway, each under the same plan,
 * one after the other so they never compete for the CPU. Writes the results as JSON.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { BenchPlan } from './bench-plan.js';
import { directTarget, startUpstream, type BenchTarget } from './bench-processes.js';
import { computeFigures, renderTable, type TargetResult } from './bench-report.js';
import { isMeteringOff, openTarget, type TargetId } from './bench-targets.js';
import { BENCH_MODELS, chatBody } from './bench-models.js';
import { runSaturation } from './saturation-load.js';
import { runFixedRate } from './fixed-rate-load.js';
import { measureFirstToken, measureOpenStreams } from './stream-probes.js';

export interface BenchOptions {
  plan: BenchPlan;
  targets: TargetId[];
  outFile: string;
  cpuProfileDir?: string;
  log: (line: string) => void;
}

async function measureTarget(target: BenchTarget, plan: BenchPlan, log: (line: string) => void): Promise<TargetResult> {
  const whole = chatBody(BENCH_MODELS.fast, false);
  const result: TargetResult = { id: target.id, label: target.label };
  if (plan.warmupSeconds > 0) {
    // Let the JIT compile the hot path before anything is measured.
    log(`  warm-up ${plan.warmupSeconds} s`);
    await runSaturation(target, whole, plan.connections, plan.warmupSeconds);
    await runSaturation(target, chatBody(BENCH_MODELS.fast, true), plan.connections, plan.warmupSeconds);
  }
  log(`  saturation, whole answers: ${plan.connections} connections, ${plan.saturationSeconds} s`);
  result.saturation = await runSaturation(target, whole, plan.connections, plan.saturationSeconds);
  log(`  saturation, streams: ${plan.connections} connections, ${plan.streamSaturationSeconds} s`);
  result.streamSaturation = await runSaturation(
    target,
    chatBody(BENCH_MODELS.fast, true),
    plan.connections,
    plan.streamSaturationSeconds,
  );
  // Metering off is the reference of one figure (CPU, metering on ÷ off): the rest is not measured.
  if (isMeteringOff(target.id)) return result;
  log(`  fixed rate: ${plan.fixedRate} req/s, ${plan.fixedRateSeconds} s`);
  result.fixedRate = await runFixedRate(target, whole, plan.fixedRate, plan.fixedRateSeconds);
  log(`  time to first token: ${plan.firstTokenStreams} streams, ${plan.firstTokenConcurrency} at a time`);
  result.firstToken = await measureFirstToken(
    target,
    chatBody(BENCH_MODELS.firstToken, true),
    plan.firstTokenStreams,
    plan.firstTokenConcurrency,
  );
  // The fake upstream's memory is nobody's figure; only gateways are measured holding streams open.
  if (target.pid && target.id !== 'direct') {
    log(`  memory: ${plan.openStreams} streams open at once`);
    result.openStreams = await measureOpenStreams(target, chatBody(BENCH_MODELS.longOpen, true), plan.openStreams);
  }
  return result;
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
  const results: TargetResult[] = [];
  try {
    for (const id of options.targets) {
      const label = id === 'direct' ? 'direct' : id;
      log(`${label}:`);
      let opened: Awaited<ReturnType<typeof openTarget>> | undefined;
      try {
        opened =
          id === 'direct'
            ? { target: directTarget(upstream), close: async () => undefined }
            : await openTarget(id, {
                upstreamUrl: upstream.url,
                scratch,
                cpuProfileDir: options.cpuProfileDir,
              });
        results.push(await measureTarget(opened.target, plan, log));
      } catch (error) {
        log(`  failed: ${(error as Error).message}`);
        results.push({ id, label: opened?.target.label ?? id, error: (error as Error).message });
      } finally {
        await opened?.close();
      }
    }
  } finally {
    await upstream.stop();
  }
  const figures = computeFigures(results);
  const table = renderTable(figures, results);
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
    results,
  };
  mkdirSync(dirname(options.outFile), { recursive: true });
  writeFileSync(options.outFile, `${JSON.stringify(json, null, 2)}\n`);
  return { results, table, json, failed: results.some((result) => result.error) };
}

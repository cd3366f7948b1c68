import cluster, { type Worker } from 'node:cluster';
import type { GatewayConfig } from '../config/gateway-config.js';
import { CliError } from './cli-context.js';
import { gatewayEnv, workerExecArgv } from './gateway-node-flags.js';

/**
 * Why `gateway serve --workers N` (N > 1) cannot run with this config, or null when it can.
 * Workers are separate processes: whatever one keeps in its own memory the others do not see.
 * On SQLite the hot counters (balances net of open holds, key quotas, rate windows) are such
 * memory, so two workers would each admit requests against the whole balance: money would not
 * stay exact. PostgreSQL + Redis keep them shared, exactly as for instances on several machines.
 */
export function workersRefusal(config: GatewayConfig, workers: number): string | null {
  if (workers <= 1) return null;
  const postgres = config.databaseUrl.startsWith('postgres://') || config.databaseUrl.startsWith('postgresql://');
  if (!postgres)
    return `--workers ${workers} needs PostgreSQL and Redis (DATABASE_URL=postgres://…, REDIS_URL=redis://…): on SQLite the credit balances, holds and rate windows live in one process's memory, so several workers would each spend the whole balance. On SQLite run one process (--workers 1, the default).`;
  if (!config.redisUrl)
    return `--workers ${workers} needs REDIS_URL: without Redis every worker keeps its own credit holds and rate windows, so together they would spend more than the balance and allow more than the limits.`;
  return null;
}

/** How long a worker that died is left before another takes its place (a crash loop stays slow). */
const RESTART_DELAY_MS = 1000;

/**
 * The primary of `gateway serve --workers N`: forks N copies of this command (node:cluster), which
 * share one listening port (the primary accepts and hands connections out in turn). The first
 * worker is started alone and the rest once it listens, so migrations and the first account are
 * done by one process. A worker that dies is replaced; SIGTERM/SIGINT are passed to every worker
 * (each lets its open requests finish and writes what it holds) and the primary exits when they
 * have; SIGHUP (config reload) is passed on too.
 */
export async function runPrimary(workers: number, write: (text: string) => void): Promise<void> {
  let stopping = false;
  let started = false;
  const live = new Set<Worker>();
  cluster.setupPrimary({ execArgv: workerExecArgv(process.execArgv, process.env.NODE_OPTIONS) });
  const fork = (): Promise<void> =>
    new Promise((resolve, reject) => {
      // Workers inherit the primary's environment; GATEWAY_ENV fills in what it does not set.
      const worker = cluster.fork(gatewayEnv(process.env));
      live.add(worker);
      worker.once('listening', () => resolve());
      worker.once('exit', (code, signal) => {
        live.delete(worker);
        if (stopping) return;
        const how = signal ?? `code ${code}`;
        if (!started) {
          // A worker that cannot start (bad config, store unreachable) would fail again: give up.
          stopping = true;
          for (const other of live) other.process.kill('SIGTERM');
          reject(new CliError(`worker ${worker.process.pid} exited (${how}) before it listened`));
          return;
        }
        write(`worker ${worker.process.pid} exited (${how}); starting another\n`);
        setTimeout(() => void fork().catch(() => undefined), RESTART_DELAY_MS).unref();
      });
    });
  await fork();
  await Promise.all(Array.from({ length: workers - 1 }, fork));
  started = true;
  write(`${workers} workers (pids ${[...live].map((worker) => worker.process.pid).join(', ')}) share the port\n`);
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const worker of live) worker.process.kill(signal);
    const check = setInterval(() => {
      if (live.size > 0) return;
      clearInterval(check);
      write('every worker stopped\n');
      process.exit(0);
    }, 50);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGHUP', () => {
    for (const worker of live) worker.process.kill('SIGHUP');
  });
}

/** Whether this process is a worker forked by runPrimary (it then serves as a single process does). */
export const isClusterWorker = (): boolean => cluster.isWorker;

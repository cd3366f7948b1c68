import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { UpstreamGaps } from './bench-models.js';
import { GATEWAY_NODE_FLAGS, gatewayEnv } from '../cli/gateway-node-flags.js';

/** Something the load generator can aim at: a gateway under test, or the upstream itself. */
export interface BenchTarget {
  /** Short id used in latest.json: direct, floor, gateway-sqlite, gateway-postgres, portkey. */
  id: string;
  label: string;
  origin: string;
  path: string;
  headers: Record<string, string>;
  /** The process whose CPU and memory are charged to this target (none for direct). */
  pid?: number;
  stop(): Promise<void>;
}

const HERE = dirname(fileURLToPath(import.meta.url));
/** Compiled (dist/, `npm run bench`) or TypeScript source (the vitest smoke test, through tsx). */
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const CHILD_EXTENSION = FROM_SOURCE ? '.ts' : '.js';
const CHILD_LOADER = FROM_SOURCE ? ['--import', 'tsx'] : [];
const READY_TIMEOUT_MS = 90_000;

/** A child's last output, for an error message that says why it died. */
function keepTail(child: ChildProcess): () => string {
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => tail;
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

interface ForkedChild<Ready> {
  child: ChildProcess;
  ready: Ready;
  stop(): Promise<void>;
}

/** Forks one of our compiled bench entry points and waits for its { type: 'ready' } message. */
async function forkReady<Ready>(
  file: string,
  env: Record<string, string | undefined>,
  execArgv: string[] = [],
  onOutput?: (chunk: Buffer) => void,
): Promise<ForkedChild<Ready>> {
  const child = fork(join(HERE, `${file}${CHILD_EXTENSION}`), [], {
    env: { ...process.env, ...env },
    execArgv: [...CHILD_LOADER, ...execArgv],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const tail = keepTail(child);
  if (onOutput) child.stdout?.on('data', onOutput);
  const ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${file} was not ready within ${READY_TIMEOUT_MS} ms:\n${tail()}`)),
      READY_TIMEOUT_MS,
    );
    child.on('message', (message: { type?: string }) => {
      if (message?.type === 'ready') {
        clearTimeout(timer);
        resolve(message as Ready);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited (code ${code}) before it was ready:\n${tail()}`));
    });
  });
  return {
    child,
    ready,
    async stop() {
      if (child.connected) child.send({ type: 'stop' });
      await waitForExit(child, 15_000);
    },
  };
}

export async function startUpstream(gaps: UpstreamGaps): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const forked = await forkReady<{ url: string }>('upstream-child', { BENCH_UPSTREAM_GAPS: JSON.stringify(gaps) });
  return { url: forked.ready.url, pid: forked.child.pid!, stop: forked.stop };
}

/** The fake upstream itself; its process's CPU and memory are reported as the floor of one HTTP hop. */
export function directTarget(upstream: { url: string; pid: number }): BenchTarget {
  const url = new URL(upstream.url);
  return {
    id: 'direct',
    label: 'direct (fake upstream)',
    origin: url.origin,
    path: `${url.pathname}/chat/completions`,
    headers: {},
    pid: upstream.pid,
    stop: async () => undefined,
  };
}

export interface OurGatewayOptions {
  id: string;
  label: string;
  upstreamUrl: string;
  databaseUrl: string;
  redisUrl?: string;
  /** PostgreSQL: keep every table in this schema (created and dropped by the caller). */
  schema?: string;
  metering: boolean;
  /** Write a V8 CPU profile of the gateway into this folder. */
  cpuProfileDir?: string;
  /** Node flags instead of those the gateway ships with (GATEWAY_NODE_FLAGS, as `gateway serve` starts), for A/B runs. */
  nodeFlags?: readonly string[];
  /** Receives the gateway process's stdout (the GC probe reads V8's GC trace from it). */
  onOutput?: (chunk: Buffer) => void;
}

export async function startOurGateway(options: OurGatewayOptions): Promise<BenchTarget> {
  const env: Record<string, string | undefined> = {
    BENCH_UPSTREAM_URL: options.upstreamUrl,
    BENCH_METERING: options.metering ? 'on' : 'off',
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl ?? '',
    PGOPTIONS: options.schema ? `-c search_path=${options.schema}` : undefined,
    CHILD_REDIS_PREFIX: options.schema ? `${options.schema}:` : undefined,
    NODE_ENV: 'production',
    // As the image and `serve --workers` start a gateway (MALLOC_ARENA_MAX); a value set in the
    // benchmark's own environment wins, for A/B runs.
    ...gatewayEnv(process.env),
  };
  const execArgv = [
    // As the Dockerfile's ENTRYPOINT and `npm start` start `gateway serve`.
    ...(options.nodeFlags ?? GATEWAY_NODE_FLAGS),
    ...(options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : []),
  ];
  // The measured gateway is a restarted one, as in production: a first process migrates the fresh
  // store and makes the benchmark's account and key (loading accounts, better-auth), and stops; the
  // one measured starts on that store and makes none (accounts load on first use: lazy-auth.ts).
  const preparing = await forkReady<{ apiKey: string }>('gateway-child', env, execArgv);
  await preparing.stop();
  const forked = await forkReady<{ url: string; apiKey: string }>(
    'gateway-child',
    { ...env, BENCH_API_KEY: preparing.ready.apiKey },
    execArgv,
    options.onOutput,
  );
  return {
    id: options.id,
    label: options.label,
    origin: forked.ready.url,
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${forked.ready.apiKey}` },
    pid: forked.child.pid,
    stop: forked.stop,
  };
}

/** The smallest Fastify + undici proxy to the same upstream (floor-child.ts): the figure every other is compared with. */
export async function startFloor(upstreamUrl: string): Promise<BenchTarget> {
  const forked = await forkReady<{ url: string }>('floor-child', {
    BENCH_UPSTREAM_URL: upstreamUrl,
    NODE_ENV: 'production',
  });
  return {
    id: 'floor',
    label: 'floor (Fastify + undici)',
    origin: forked.ready.url,
    path: '/v1/chat/completions',
    headers: {},
    pid: forked.child.pid,
    stop: forked.stop,
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Portkey's open-source gateway (@portkey-ai/gateway), started as its README says, aimed at the same upstream. */
export async function startPortkey(upstreamUrl: string): Promise<BenchTarget> {
  const entry = join(
    dirname(createRequire(import.meta.url).resolve('@portkey-ai/gateway/package.json')),
    'build',
    'start-server.js',
  );
  const port = await freePort();
  const child = spawn(process.execPath, [entry, `--port=${port}`, '--headless'], {
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail = keepTail(child);
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Portkey's gateway exited (code ${child.exitCode}):\n${tail()}`);
    const answered = await fetch(origin, { signal: AbortSignal.timeout(1000) }).then(
      () => true,
      () => false,
    );
    if (answered) break;
    if (Date.now() > deadline)
      throw new Error(`Portkey's gateway did not answer within ${READY_TIMEOUT_MS} ms:\n${tail()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    id: 'portkey',
    label: 'Portkey gateway 1.15.2',
    origin,
    path: '/v1/chat/completions',
    headers: {
      authorization: 'Bearer bench-upstream-key',
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': upstreamUrl,
    },
    pid: child.pid,
    async stop() {
      child.kill('SIGTERM');
      await waitForExit(child, 10_000);
    },
  };
}

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { freePort } from './free-port.js';

/**
 * Timeouts for a test's client of its own cluster when the test is not about timeouts: the
 * gateway's default command timeout (200 ms) is shorter than a cluster node's answer can take on
 * a loaded CI machine (the suite runs files in parallel on 2 cores; "Command timed out" was seen
 * at load 12), and a cluster client has no lag-aware timeout (redis-client.ts).
 */
export const LOADED_MACHINE_TIMEOUTS = { commandTimeoutMs: 10_000, connectTimeoutMs: 10_000 } as const;

export interface OwnRedisCluster {
  /** The gateway's REDIS_URL for it: redis+cluster://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3 */
  url: string;
  ports: number[];
  /** SIGKILL every node (connections refused), then start them again empty, as one new cluster. */
  restartEmpty(): Promise<void>;
  /** SIGSTOP / SIGCONT every node. */
  pause(): void;
  resume(): void;
  /** A plain cluster client to look inside (closed by stop()). */
  inspect(): Cluster;
  stop(): Promise<void>;
}

/**
 * A 3-node Redis Cluster of the test's own on loopback (never the shared Redis at 6379): three
 * `redis-server --cluster-enabled yes` on free ports with their files in a temporary directory,
 * joined by `redis-cli --cluster create` (no replicas), nothing saved. stop() kills only these.
 */
export async function startOwnRedisCluster(size = 3): Promise<OwnRedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-redis-cluster-'));
  const ports: number[] = [];
  for (let index = 0; index < size; index++) ports.push(await freePort());
  let nodes: ChildProcess[] = [];
  const clients: Cluster[] = [];
  let generation = 0;

  const startNodes = async () => {
    generation++;
    nodes = ports.map((port) =>
      spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}-${generation}.conf`,
          '--cluster-node-timeout',
          '2000',
          '--dir',
          dir,
          '--save',
          '',
          '--appendonly',
          'no',
        ],
        { stdio: 'ignore' },
      ),
    );
    for (const port of ports) await waitForPing(port);
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    await waitForClusterOk(ports);
  };

  const killNodes = async () => {
    await Promise.all(
      nodes.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGCONT');
        child.kill('SIGKILL');
        await exited;
      }),
    );
  };

  try {
    await startNodes();
  } catch (error) {
    await killNodes();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `redis+cluster://${ports.map((port) => `127.0.0.1:${port}`).join(',')}`,
    ports,
    async restartEmpty() {
      await killNodes();
      await startNodes();
    },
    pause: () => nodes.forEach((child) => child.kill('SIGSTOP')),
    resume: () => nodes.forEach((child) => child.kill('SIGCONT')),
    inspect() {
      const client = new Cluster(
        ports.map((port) => ({ host: '127.0.0.1', port })),
        { redisOptions: { commandTimeout: 2000 } },
      );
      client.on('error', () => undefined);
      clients.push(client);
      return client;
    },
    async stop() {
      for (const client of clients) client.disconnect();
      await killNodes();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function waitForPing(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      if ((await probe.ping()) === 'PONG') return;
    } catch {
      if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not start`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      probe.disconnect();
    }
  }
}

/** Every node reports cluster_state:ok (all 16384 slots served). */
async function waitForClusterOk(ports: number[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (const port of ports) {
    const probe = new Redis({ port, host: '127.0.0.1' });
    probe.on('error', () => undefined);
    try {
      for (;;) {
        const info = await probe.cluster('INFO');
        if (String(info).includes('cluster_state:ok')) break;
        if (Date.now() > deadline) throw new Error(`Redis Cluster node ${port} did not reach cluster_state:ok`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      probe.disconnect();
    }
  }
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`)),
    );
  });
}

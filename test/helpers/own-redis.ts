import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './free-port.js';
import { Redis } from 'ioredis';

export interface OwnRedis {
  url: string;
  port: number;
  /** SIGKILL: gone at once, connections refused. */
  kill(): Promise<void>;
  /** SIGSTOP: the port still accepts connections, nothing answers. */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** Starts it again on the same port (after kill). */
  start(): Promise<void>;
  /** A plain client to look inside (closed by stop()). */
  inspect(): Redis;
  stop(): Promise<void>;
}

/**
 * A throw-away redis-server of the test's own on a free port, for outage tests (never the shared
 * one): killed, paused and restarted at will, no persistence.
 */
export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const clients: Redis[] = [];
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 50 });
    probe.on('error', () => undefined);
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await probe.connect().catch(() => undefined);
        if ((await probe.ping()) === 'PONG') break;
      } catch {
        if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not start`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    probe.disconnect();
  };
  const kill = async () => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    start,
    inspect() {
      const client = new Redis({ port, host: '127.0.0.1', commandTimeout: 2000 });
      client.on('error', () => undefined);
      clients.push(client);
      return client;
    },
    async stop() {
      for (const client of clients) client.disconnect();
      child?.kill('SIGCONT');
      await kill();
    },
  };
}

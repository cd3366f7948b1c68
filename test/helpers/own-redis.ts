import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './free-port.js';
import { Redis } from 'ioredis';

export interface OwnRedis {
  url: string;
  port: number;
  /** SIGKILL: gone at once, connections refused. Does nothing when it is not running. */
  kill(): Promise<void>;
  /** SIGSTOP: the port still accepts connections, nothing answers. */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** Starts it again on the same port (after kill or stop), empty. */
  start(): Promise<void>;
  /** A plain client to look inside (closed by stop()). */
  inspect(): Redis;
  /** Gone for good: may be called again (a test stops it half-way, its teardown once more). */
  stop(): Promise<void>;
}

/** The port was taken by another process before this test's redis-server could bind it. */
class PortTakenError extends Error {
  constructor(port: number) {
    super(`port ${port} was taken by another process before redis-server could bind it`);
  }
}

/**
 * The one redis-server of a test's own (never the shared one at 6379), on a free port, nothing
 * saved to disk: killed, paused, stopped and restarted at will.
 */
export async function startOwnRedis(): Promise<OwnRedis> {
  // The exit is awaited through a promise taken when the process starts: a process killed by a
  // signal keeps `exitCode` null, so asking the process whether it still runs would wait for an
  // 'exit' event that has already been emitted.
  let running: { child: ChildProcess; exited: Promise<void> } | undefined;
  const clients: Redis[] = [];
  let port = 0;
  const start = async () => {
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    let gone = false;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    void exited.then(() => (gone = true));
    running = { child, exited };
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 50 });
    probe.on('error', () => undefined);
    try {
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          await probe.connect().catch(() => undefined);
          if ((await probe.ping()) === 'PONG') break;
        } catch {
          if (gone) throw new PortTakenError(port);
          if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not start`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      // The server that answers must be this child. A port from freePort() is free only until
      // someone binds it: another test's redis-server may have taken it meanwhile, ours then fails
      // to bind and exits, and the probe reaches the other's. Two tests sharing one server would
      // pause, kill and empty each other's Redis (in the whole suite this showed as a burst of 503s).
      const info = await probe.info('server');
      if (Number(/process_id:(\d+)/.exec(info)?.[1]) !== child.pid) throw new PortTakenError(port);
    } catch (error) {
      child.kill('SIGKILL');
      await exited;
      throw error;
    } finally {
      probe.disconnect();
    }
  };
  const kill = async () => {
    const current = running;
    if (!current) return;
    current.child.kill('SIGCONT');
    current.child.kill('SIGKILL');
    await current.exited;
  };
  // A port taken by someone else between freePort() and the server's bind: another port.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await start();
      break;
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt === 5) throw error;
    }
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    pause: () => running?.child.kill('SIGSTOP'),
    resume: () => running?.child.kill('SIGCONT'),
    start,
    inspect() {
      const client = new Redis({ port, host: '127.0.0.1', commandTimeout: 2000 });
      client.on('error', () => undefined);
      clients.push(client);
      return client;
    },
    async stop() {
      for (const client of clients.splice(0)) client.disconnect();
      await kill();
    },
  };
}

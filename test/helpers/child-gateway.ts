import { fork, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '../..');

export interface ChildGateway {
  url: string;
  process: ChildProcess;
  /** Resolves with the exit signal or code once the process is gone. */
  exited: Promise<string | number | null>;
  /** Graceful stop (SIGTERM path: the app closes and writes what it holds). */
  stop(): Promise<void>;
}

/**
 * Starts the one child-gateway entry point, src/bench/gateway-child.ts, in a process of its own (tsx
 * as a loader in that process), for tests that SIGKILL it. env: CHILD_CONFIG (the config text),
 * DATABASE_URL, PGOPTIONS, REDIS_URL, CHILD_REDIS_PREFIX.
 */
export async function startChildGateway(env: Record<string, string>): Promise<ChildGateway> {
  const child = fork(join(ROOT, 'src/bench/gateway-child.ts'), [], {
    execArgv: ['--import', pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href],
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  child.stdout!.on('data', (data: Buffer) => (output += data.toString()));
  child.stderr!.on('data', (data: Buffer) => (output += data.toString()));
  const exited = new Promise<string | number | null>((resolveExit) =>
    child.on('exit', (code, signal) => resolveExit(signal ?? code)),
  );
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`child gateway did not start:\n${output}`)), 60_000);
    child.on('message', (message: { type?: string; url?: string }) => {
      if (message?.type === 'ready' && message.url) {
        clearTimeout(timer);
        resolveUrl(message.url);
      }
    });
    child.on('exit', () => reject(new Error(`child gateway exited:\n${output}`)));
  });
  return {
    url,
    process: child,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.send({ type: 'stop' });
      await exited;
    },
  };
}

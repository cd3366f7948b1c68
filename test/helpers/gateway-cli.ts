import { execFile, spawn, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '../..');
// The CLI from its source through tsx as a loader in the same process, not tsx's CLI: that wrapper
// relays SIGTERM to a child and kills it after 30 ms on a loaded machine (flaky shutdown tests).
const CLI = [
  '--import',
  pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href,
  join(ROOT, 'src/cli/main.ts'),
];

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `gateway …` to its end, blocking this process; the environment is exactly `env`. */
export function runGatewayCliSync(
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; timeoutMs?: number },
): CliRun {
  const result = spawnSync(process.execPath, [...CLI, ...args], {
    env: options.env,
    cwd: options.cwd,
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs `gateway …` without blocking this process (a fake upstream in it may have to answer); PATH and LOG_LEVEL=warn unless `env` says. */
export function runGatewayCli(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<CliRun> {
  return new Promise((resolvePromise) => {
    execFile(
      process.execPath,
      [...CLI, ...args],
      { env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...env }, cwd, encoding: 'utf8', timeout: 60_000 },
      (error, stdout, stderr) =>
        resolvePromise({ status: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Starts `gateway …` (serve) as a child whose stdout and stderr the test reads; the environment is exactly `env`. */
export function spawnGatewayCli(args: string[], options: { env: NodeJS.ProcessEnv; cwd: string }) {
  return spawn(process.execPath, [...CLI, ...args], { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
}

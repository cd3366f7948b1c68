import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '../..');
/** The CLI from its source, through tsx's loader in the same process (no relaying wrapper). */
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

/** Runs `gateway …` without blocking this process (a fake upstream in it may have to answer). */
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

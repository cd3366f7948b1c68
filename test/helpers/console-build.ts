import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONSOLE_DIST = fileURLToPath(new URL('../../console/dist/', import.meta.url));
const CONSOLE_SOURCES = fileURLToPath(new URL('../../console/src/', import.meta.url));

/** The newest modification time of any file under `directory`. */
function newestChange(directory: string): number {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestChange(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * The console's production build (npm install builds it); built here when a checkout lacks it or
 * a console source changed since (a merge that touched the console would otherwise test the old one).
 */
export function ensureConsoleBuild(): string {
  const index = `${CONSOLE_DIST}index.html`;
  if (!existsSync(index) || statSync(index).mtimeMs < newestChange(CONSOLE_SOURCES)) {
    // vitest sets NODE_ENV=test, under which Vite would bundle React's development build.
    const env = { ...process.env, NODE_ENV: 'production' };
    const result = spawnSync('npm', ['run', 'build', '--workspace', 'console'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env,
    });
    if (result.status !== 0) throw new Error(`console build failed: ${result.stderr}`);
  }
  return CONSOLE_DIST;
}

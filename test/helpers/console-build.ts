import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CONSOLE_DIST = fileURLToPath(new URL('../../console/dist/', import.meta.url));

/** The console's production build (npm install builds it); built here when a checkout lacks it. */
export function ensureConsoleBuild(): string {
  if (!existsSync(`${CONSOLE_DIST}index.html`)) {
    const result = spawnSync('npm', ['run', 'build', '--workspace', 'console'], { cwd: REPO_ROOT, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`console build failed: ${result.stderr}`);
  }
  return CONSOLE_DIST;
}

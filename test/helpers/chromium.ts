import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Debian's Chromium for the browser tests. A fresh machine lacks it, so it is installed from
 * Debian's packages (playwright's own browser download cannot work here); the package lists are
 * refreshed only when the first attempt fails.
 */
export function ensureChromium(): string {
  if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => spawnSync('apt-get', ['install', '-y', 'chromium'], { env, encoding: 'utf8' });
  let result = install();
  if (result.status !== 0) {
    spawnSync('apt-get', ['update'], { env, encoding: 'utf8' });
    result = install();
  }
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(
      `apt-get install chromium failed (exit ${result.status}): ${result.stderr || result.error?.message}`,
    );
  return CHROMIUM_PATH;
}

/** Flags for a headless Chromium on a machine without network access or GPU, run as root. */
export function chromiumArgs(): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ];
}

/** A fresh, empty profile folder for one browser run. */
export function freshUserDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'chromium-profile-'));
}

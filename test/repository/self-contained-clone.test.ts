import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const scratch = mkdtempSync(join(tmpdir(), 'gateway-clone-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A fresh clone in an empty directory (nothing beside it, so no `../shared`) must run the provider
 * fixture tests: everything a test reads has to be committed inside the repository. The clone borrows
 * this checkout's node_modules through a symlink instead of a minutes-long install.
 */
describe('a fresh clone of the repository', () => {
  it('runs provider fixture tests with nothing beside it', { timeout: 120_000 }, () => {
    const clone = join(scratch, 'gateway');
    execFileSync('git', ['clone', '--quiet', ROOT, clone], { stdio: 'pipe' });
    expect(existsSync(join(dirname(clone), 'shared'))).toBe(false);
    expect(existsSync(join(clone, 'test/fixtures/SOURCES.md'))).toBe(true);
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');

    const files = [
      'test/providers/ollama-end-to-end.test.ts',
      'src/providers/anthropic/anthropic-stream-decoder.test.ts',
      'src/providers/framing/aws-event-stream-decoder.test.ts',
    ];
    const run = spawnSync(process.execPath, [join(clone, 'node_modules/vitest/vitest.mjs'), 'run', ...files], {
      cwd: clone,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
      timeout: 110_000,
    });
    expect(run.stderr + run.stdout).toMatch(/Test Files\s+3 passed \(3\)/);
    expect(run.status).toBe(0);
  });
});

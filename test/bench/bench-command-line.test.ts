import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** A bench command from its source (tsx as a loader); only options that end before any target starts. */
function runScript(file: string, args: string[]) {
  const result = spawnSync(
    process.execPath,
    ['--import', pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href, join(ROOT, file), ...args],
    { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `npm run bench -- …` */
const bench = (args: string[]) => runScript('src/bench/run-bench.ts', args);

describe('npm run bench: its command line', () => {
  it('--help prints the usage with every target and measure', () => {
    const run = bench(['--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^usage: npm run bench/);
    expect(run.stdout).toContain('gateway-postgres-off');
    expect(run.stdout).toContain('sustained-rate');
  });

  it.each([
    [['--bogus'], "Unknown option '--bogus'"],
    [['--targets', 'floor,nope'], '--targets: unknown target "nope"'],
    [['--only', 'everything'], '--only: unknown measure "everything"'],
    [['--semi-space', 'big'], '--semi-space: a size in MB'],
  ])('%j is refused in one line and the usage (exit 2), not a stack trace', (args, message) => {
    const run = bench(args);
    expect(run.status).toBe(2);
    const [first] = run.stderr.split('\n');
    expect(first.startsWith('bench: ') && first.includes(message)).toBe(true);
    expect(run.stderr).toContain('usage: npm run bench');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('gc-probe: its command line', () => {
  it('--help prints the usage', () => {
    const run = runScript('src/bench/gc-probe.ts', ['--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^usage: gc-probe\.js sqlite\|sqlite-off\|pg\|pg-off/);
  });

  it.each([
    [['--bogus'], "Unknown option '--bogus'"],
    [['nope'], 'unknown target: nope'],
    [['sqlite', '--rate', 'fast'], '--rate must be a number ≥ 0, not fast'],
  ])('%j is refused in one line and the usage (exit 2), not a stack trace', (args, message) => {
    const run = runScript('src/bench/gc-probe.ts', args);
    expect(run.status).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(message);
    expect(run.stderr).toContain('usage: gc-probe.js');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

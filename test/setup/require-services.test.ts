import { spawnSync } from 'node:child_process';
import { freePort as closedPort } from '../helpers/free-port.js';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canConnect, missingServicesMessage, requiredServices } from './require-services.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('the check that PostgreSQL and Redis are up before any test runs', () => {
  it('finds the services this machine runs, so the whole suite may go on', async () => {
    expect(await missingServicesMessage(requiredServices({}))).toBeUndefined();
  });

  it('names the one that is down, where it was looked for and the command that starts it', async () => {
    const port = await closedPort();
    expect(await canConnect('127.0.0.1', port)).toBe(false);
    const message = await missingServicesMessage(requiredServices({ TEST_REDIS_URL: `redis://127.0.0.1:${port}` }));
    expect(message).toBe(
      `Tests need Redis at 127.0.0.1:${port} (start it: redis-server --daemonize yes --bind 127.0.0.1 --port ${port}` +
        ` --save "" --appendonly no); or run .ci/run, which starts both.`,
    );
  });

  it('stops `vitest run` within seconds with that one line on stderr when PostgreSQL is down', async () => {
    const port = await closedPort();
    const started = Date.now();
    const run = spawnSync(
      process.execPath,
      [resolve(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', 'src/providers/framing/ndjson-decoder.test.ts'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, TEST_POSTGRES_URL: `postgres://postgres@127.0.0.1:${port}/test`, NO_COLOR: '1' },
        timeout: 30_000,
      },
    );
    expect(run.status).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
    expect(lines).toEqual([
      `Tests need PostgreSQL at 127.0.0.1:${port} (start it: pg_ctlcluster --skip-systemctl-redirect` +
        ` $(ls /etc/postgresql) main start); or run .ci/run, which starts both.`,
    ]);
    // No test file ran.
    expect(run.stdout).not.toMatch(/Test Files/);
  });
});

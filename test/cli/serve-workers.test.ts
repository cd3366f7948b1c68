import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_ENV } from '../../src/cli/gateway-node-flags.js';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { runGatewayCliSync, spawnGatewayCli } from '../helpers/gateway-cli.js';
import { testConfigText } from '../helpers/test-gateway.js';
import { createTestStore, type TestStore } from '../helpers/test-store.js';
import { startOwnRedis, type OwnRedis } from '../helpers/own-redis.js';

let upstream: MockUpstream;
let dir: string;

beforeAll(async () => {
  upstream = await startMockUpstream({ scenario: { chunkCount: 5 } });
  dir = mkdtempSync(join(tmpdir(), 'gateway-workers-'));
  writeFileSync(join(dir, 'gateway.config.yaml'), testConfigText(upstream.url));
});

afterAll(async () => {
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

function output(child: ChildProcess): { text: () => string; waitFor: (pattern: RegExp) => Promise<RegExpMatchArray> } {
  let seen = '';
  const waiters: Array<() => void> = [];
  const take = (data: Buffer) => {
    seen += data.toString();
    for (const waiter of waiters) waiter();
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  return {
    text: () => seen,
    waitFor: (pattern) =>
      new Promise((resolvePromise, reject) => {
        const check = () => {
          const match = seen.match(pattern);
          if (match) resolvePromise(match);
        };
        waiters.push(check);
        child.once('exit', () => reject(new Error(`exited before ${pattern}:\n${seen}`)));
        check();
      }),
  };
}

describe('gateway serve --workers N', () => {
  it('refuses more than one worker on SQLite, saying why and what to do', () => {
    const result = runGatewayCliSync(['serve', '--workers', '2'], {
      env: { PATH: process.env.PATH, DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}`, PORT: '0' },
      cwd: dir,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/--workers 2 needs PostgreSQL and Redis/);
    expect(result.stderr).toMatch(/On SQLite run one process/);
  });

  it('refuses more than one worker on PostgreSQL without Redis', () => {
    const result = runGatewayCliSync(['serve', '--workers', '2'], {
      env: { PATH: process.env.PATH, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test', PORT: '0' },
      cwd: dir,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/--workers 2 needs REDIS_URL/);
  });

  describe('on PostgreSQL + Redis', () => {
    let store: TestStore;
    let redis: OwnRedis;
    beforeAll(async () => {
      store = await createTestStore('postgres', { migrate: false });
      redis = await startOwnRedis();
    });
    afterAll(async () => {
      await redis?.stop();
      await store?.cleanup();
    });

    it('runs N processes on one port, each answering, and stops them all on SIGTERM', async () => {
      const child = spawnGatewayCli(['serve', '--workers', '2'], {
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: store.url,
          PGOPTIONS: `-c search_path=${store.searchPath}`,
          REDIS_URL: redis.url,
          PORT: '0',
          LOG_LEVEL: 'warn',
        },
        cwd: dir,
      });
      const seen = output(child);
      try {
        const [, pids] = await seen.waitFor(/2 workers \(pids ([\d, ]+)\) share the port/);
        const [, url] = await seen.waitFor(/gateway listening on (http:\/\/\S+)/);
        expect(pids.split(', ')).toHaveLength(2);
        // Each worker starts with the gateway's environment (GATEWAY_ENV: glibc's arena cap),
        // which the C library reads only at start.
        if (process.platform === 'linux')
          for (const pid of pids.split(', ')) {
            const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
            for (const [name, value] of Object.entries(GATEWAY_ENV)) expect(environ).toContain(`${name}=${value}`);
          }
        // Both workers print where they listen: one port for both. A worker's line can reach the
        // pipe after the primary's (each process writes its own stdout), so wait for the second.
        await seen.waitFor(/gateway listening on [\s\S]*gateway listening on /);
        const listening = [...seen.text().matchAll(/gateway listening on (http:\/\/\S+)/g)].map((match) => match[1]);
        expect(listening).toEqual([url, url]);
        for (let index = 0; index < 6; index++) {
          const response = await fetch(`${url}/health/live`, { headers: { connection: 'close' } });
          expect(response.status).toBe(200);
        }
        const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
        expect(seen.text().match(/stopped cleanly/g)).toHaveLength(2);
        expect(seen.text()).toMatch(/every worker stopped/);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    }, 120_000);
  });
});

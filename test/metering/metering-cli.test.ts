import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { openStore } from '../../src/store/database.js';
import { runGatewayCliSync, spawnGatewayCli } from '../helpers/gateway-cli.js';
import { testConfigText } from '../helpers/test-gateway.js';
import { findUserByEmail } from '../../src/users/user-repository.js';
import { chat, ledgerFigures } from './metering-helpers.js';

let upstream: MockUpstream;
let dir: string;
let env: NodeJS.ProcessEnv;

function runCli(args: string[]) {
  return runGatewayCliSync(args, { env, cwd: dir });
}

beforeAll(async () => {
  upstream = await startMockUpstream({ scenario: { chunkCount: 20, chunkGapMs: 5, latencyMs: 10 } });
  dir = mkdtempSync(join(tmpdir(), 'gateway-metering-cli-'));
  writeFileSync(join(dir, 'gateway.config.yaml'), testConfigText(upstream.url, 'billing:\n  require_credits: true\n'));
  env = {
    PATH: process.env.PATH,
    DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}`,
    PORT: '0',
    LOG_LEVEL: 'warn',
    GATEWAY_ADMIN_EMAIL: 'root@example.com',
    GATEWAY_ADMIN_PASSWORD: 'root-password-1',
  };
});

afterAll(async () => {
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('metering from the command line', () => {
  it('grants credits once per reference and prints the balance', () => {
    expect(runCli(['users', 'create', '--email', 'payer@example.com', '--password', 'payer-password-1']).status).toBe(
      0,
    );
    const grant = runCli(['credits', 'grant', '--email', 'payer@example.com', '--amount', '2.5']);
    expect(grant.status).toBe(0);
    expect(grant.stdout).toMatch(/granted 2\.5 USD to payer@example\.com; balance 2\.5 USD/);
    expect(
      runCli(['credits', 'grant', '--email', 'payer@example.com', '--amount', '1', '--reference', 'promo-1']).stdout,
    ).toMatch(/balance 3\.5 USD/);
    expect(
      runCli(['credits', 'grant', '--email', 'payer@example.com', '--amount', '1', '--reference', 'promo-1']).stdout,
    ).toMatch(/already applied/);
    expect(runCli(['credits', 'balance', '--email', 'payer@example.com']).stdout.trim()).toBe(
      'payer@example.com: 3.5 USD',
    );
    const bad = runCli(['credits', 'grant', '--email', 'payer@example.com', '--amount', '1e3']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/positive USD amount/);
  }, 180_000);

  it('loses no usage event when stopped with SIGTERM under load', async () => {
    const apiKey = runCli(['keys', 'create', '--email', 'payer@example.com', '--name', 'load']).stdout.trim();
    const child = spawnGatewayCli(['serve'], { env, cwd: dir });
    const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
    try {
      const url = await new Promise<string>((resolveUrl, reject) => {
        let seen = '';
        const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${seen}`)), 60_000);
        child.stdout!.on('data', (data: Buffer) => {
          seen += data.toString();
          const match = /gateway listening on (http:\/\/\S+)/.exec(seen);
          if (match) {
            clearTimeout(timer);
            resolveUrl(match[1]);
          }
        });
      });
      let completed = 0;
      let signalled = false;
      const worker = async (index: number) => {
        for (let round = 0; ; round++) {
          try {
            const response = await chat(url, apiKey, { max_tokens: 10, stream: (index + round) % 2 === 0 });
            const text = await response.text();
            if (response.status !== 200) return;
            if (response.headers.get('content-type')?.includes('event-stream') && !text.includes('[DONE]')) return;
            completed++;
            if (completed >= 40 && !signalled) {
              signalled = true;
              child.kill('SIGTERM');
            }
          } catch {
            return; // the server is gone
          }
        }
      };
      await Promise.all(Array.from({ length: 8 }, (_, index) => worker(index)));
      expect(await exited).toBe(0);
      expect(completed).toBeGreaterThanOrEqual(40);

      const store = openStore(env.DATABASE_URL!);
      try {
        const user = (await findUserByEmail(store.db, 'payer@example.com'))!;
        const events = await store.db
          .selectFrom('usage_events')
          .select(['status', 'cost_nanos'])
          .where('user_id', '=', user.id)
          .execute();
        expect(events.filter((event) => event.status === 200)).toHaveLength(completed);
        const figures = await ledgerFigures(store, user.id);
        expect(figures.charged).toBe(figures.usageCost);
        expect(figures.usageCost).toBe(completed * (2 * 500 + 10 * 1500));
        expect(figures.balance).toBe(3_500_000_000 - figures.charged);
      } finally {
        await store.destroy();
      }
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { runGatewayCliSync } from '../helpers/gateway-cli.js';
import { startOwnRedis, type OwnRedis } from '../helpers/own-redis.js';
import { openRedis } from '../../src/store/open-redis.js';
import { openStore } from '../../src/store/database.js';
import { applyLedgerEntry } from '../../src/credits/credit-ledger.js';
import { chat } from './metering-helpers.js';
import { RedisHotCounters } from '../../src/metering/redis-hot-counters.js';
import { storeCounterSource } from '../../src/metering/counter-source.js';
import type { SettlementRecord } from '../../src/metering/settlement-record.js';

const CREDITS = 'billing:\n  require_credits: true\n';

let upstream: MockUpstream;
let redis: OwnRedis;
let gateway: TestGateway;
let dir: string;
let env: NodeJS.ProcessEnv;

function runCli(args: string[]) {
  return runGatewayCliSync(args, { env, cwd: dir, timeoutMs: 90_000 });
}

beforeAll(async () => {
  upstream = await startMockUpstream({ scenario: { chunkCount: 10 } });
  // A Redis of this test's own: the CLI uses the installation's default key prefix.
  redis = await startOwnRedis();
  gateway = await startTestGateway({
    configText: testConfigText(upstream.url, CREDITS),
    deps: { redis: openRedis(redis.url) },
  });
  dir = mkdtempSync(join(tmpdir(), 'gateway-reconcile-cli-'));
  writeFileSync(join(dir, 'gateway.config.yaml'), testConfigText(upstream.url, CREDITS));
  env = { PATH: process.env.PATH, DATABASE_URL: gateway.testStore.url, REDIS_URL: redis.url, LOG_LEVEL: 'warn' };
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await redis?.stop();
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('credits on the command line with shared hot counters (Redis)', () => {
  it('a grant reaches the running instance at once; reconcile repairs a change the counters missed', async () => {
    // The balance is loaded into the counters (empty): refused.
    expect((await chat(gateway.url, gateway.apiKey, { max_tokens: 10 })).status).toBe(402);
    const grant = runCli(['credits', 'grant', '--email', gateway.email, '--amount', '0.001']);
    expect(grant.stderr).toBe('');
    expect(grant.status).toBe(0);
    // Served right away: the CLI's ledger write adjusted the shared counters.
    const served = await chat(gateway.url, gateway.apiKey, { max_tokens: 10 });
    expect(served.status).toBe(200);
    await served.text();
    const afterOne = 1_000_000 - (2 * 500 + 10 * 1500);
    expect(await gateway.gateway.metering!.balanceOf(gateway.userId)).toEqual({ balance: afterOne, held: 0 });

    // A ledger entry written past the hook (another store handle, no watcher): the counters miss it.
    // The settlement is written first: better-sqlite3 blocks this process's event loop while it waits
    // for the lock, so a write of the in-process gateway still under way could never finish.
    await gateway.gateway.metering!.flush();
    const bare = openStore(gateway.testStore.url);
    await applyLedgerEntry(bare, { userId: gateway.userId, kind: 'grant', amount: 5000, reference: 'grant:bare' });
    await bare.destroy();
    await gateway.gateway.metering!.flush();
    // Usually the counters miss it; a reload of the counters (their load lease after the settlement
    // write) can pick it up first. Either way reconcile must leave the exact ledger balance.
    const before = (await gateway.gateway.metering!.balanceOf(gateway.userId)).balance;
    expect([afterOne, afterOne + 5000]).toContain(before);
    const reconcile = runCli(['credits', 'reconcile']);
    expect(reconcile.status).toBe(0);
    expect(reconcile.stdout).toContain('ledger: every balance equals the sum of its entries');
    if (before === afterOne) {
      expect(reconcile.stdout).toContain('1 had drifted');
      expect(reconcile.stdout).toContain(`user ${gateway.userId}: was 0.000984, now 0.000989 USD`);
    }
    expect((await gateway.gateway.metering!.balanceOf(gateway.userId)).balance).toBe(afterOne + 5000);
    expect(runCli(['credits', 'reconcile']).stdout).toContain('hot counters: rebuilt from the ledger, no drift');
  }, 180_000);
});

describe('credits reconcile right after an instance was killed (issue 25, item 7)', () => {
  it('waits for the dead instance’s store write to stop counting, then reports; compares answers with charges', async () => {
    // Served (and loaded in the counters) first, so the account is one reconcile rebuilds.
    await applyLedgerEntry(gateway.testStore.store, {
      userId: gateway.userId,
      kind: 'grant',
      amount: 1_000_000,
      reference: 'grant:killed-writer',
    });
    const served = await chat(gateway.url, gateway.apiKey, { max_tokens: 10 });
    expect(served.status).toBe(200);
    await served.text();
    await gateway.gateway.metering!.flush();
    // An instance announced a settlement write of this user and was killed before it ended: loads
    // of the account wait until that write's lease (15 s here) runs out.
    const killed = new RedisHotCounters(openRedis(redis.url), storeCounterSource(gateway.testStore.store), {
      writeLeaseMs: 15_000,
    });
    expect(await killed.ready()).toBe(true);
    const record = {
      charge: true,
      event: { id: 'usage_killed', user_id: gateway.userId, key_id: null, cost_nanos: 1, created_at: Date.now() },
    } as unknown as SettlementRecord;
    await killed.beginWrite(killed.shardOfSettlement(gateway.userId, null), [record]);
    await killed.close();
    const reconcile = runCli(['credits', 'reconcile']);
    expect(reconcile.stderr).not.toMatch(/kept overlapping/);
    expect(reconcile.status).toBe(0);
    expect(reconcile.stdout).toContain('usage: every answered request with a cost is charged once, at its full cost');
    expect(reconcile.stdout).toMatch(/hot counters: rebuilt from the ledger/);
  }, 120_000);
});

describe('credits on the command line without Redis (counters in the serving process)', () => {
  it('a grant written by another process is honoured by the serving instance at once', async () => {
    const local = await startTestGateway({ configText: testConfigText(upstream.url, CREDITS) });
    try {
      expect((await chat(local.url, local.apiKey, { max_tokens: 10 })).status).toBe(402);
      const localEnv = { PATH: process.env.PATH, DATABASE_URL: local.testStore.url, LOG_LEVEL: 'warn' };
      const result = runGatewayCliSync(['credits', 'grant', '--email', local.email, '--amount', '1'], {
        env: localEnv,
        cwd: dir,
        timeoutMs: 90_000,
      });
      expect(result.status).toBe(0);
      // At once: before refusing for credit the instance catches up with the ledger.
      const served = await chat(local.url, local.apiKey, { max_tokens: 10 });
      expect(served.status).toBe(200);
      await served.text();
      const reconcile = runGatewayCliSync(['credits', 'reconcile'], { env: localEnv, cwd: dir, timeoutMs: 90_000 });
      expect(reconcile.stdout).toContain('ledger: every balance equals the sum of its entries');
      expect(reconcile.stdout).toContain('no REDIS_URL');
    } finally {
      await local.close();
    }
  }, 180_000);
});

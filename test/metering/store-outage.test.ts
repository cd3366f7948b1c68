import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { startOwnPostgres, type OwnPostgres } from '../helpers/own-postgres.js';
import type { TestStore } from '../helpers/test-store.js';
import { openStore } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { applyLedgerEntry } from '../../src/credits/credit-ledger.js';
import { randomId } from '../../src/shared/ids.js';
import { openRedis } from '../../src/store/open-redis.js';
import { chat, ledgerFigures } from './metering-helpers.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
// "hello there": 2 prompt tokens at $0.5/M, 10 completion tokens at $1.5/M.
const COST = 2 * 500 + 10 * 1500;
const GRANTED = 1_000_000_000;

describe('PostgreSQL stopped under load (a cluster of the test’s own)', () => {
  let upstream: MockUpstream | undefined;
  let cluster: OwnPostgres | undefined;
  let instances: TestGateway[] = [];
  afterEach(async () => {
    for (const instance of instances.reverse()) await instance.close().catch(() => undefined);
    instances = [];
    await upstream?.close();
    await cluster?.destroy();
  });

  it('with Redis, 10 s: serves every request from the hot counters, then writes every usage event and charge', async () => {
    upstream = await startMockUpstream({ scenario: { chunkCount: 10, latencyMs: 5 } });
    cluster = await startOwnPostgres();
    const store = openStore(cluster.url, { poolSize: 5 });
    await migrateToLatest(store);
    const testStore: TestStore = { store, url: cluster.url, cleanup: () => store.destroy() };
    const deps = { redis: openRedis(REDIS_URL), redisKeyPrefix: `test:${randomId(10)}:` };
    const configText = testConfigText(upstream.url, 'billing:\n  require_credits: true\n');
    const first = await startTestGateway({ configText, testStore, deps });
    const second = await startTestGateway({ configText, testStore, deps });
    instances.push(second, first);
    await applyLedgerEntry(store, { userId: first.userId, kind: 'grant', amount: GRANTED, reference: 'grant:outage' });

    const statuses: number[] = [];
    let running = true;
    const worker = async (index: number) => {
      for (let round = 0; running; round++) {
        const target = (index + round) % 2 === 0 ? first : second;
        const response = await chat(target.url, first.apiKey, { max_tokens: 10, stream: round % 2 === 0 });
        const text = await response.text();
        statuses.push(response.status);
        if (response.status !== 200) throw new Error(`status ${response.status} during the outage: ${text}`);
      }
    };
    const load = Promise.all(Array.from({ length: 6 }, (_, index) => worker(index)));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await cluster.stop();
    const servedBefore = statuses.length;
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const servedDuring = statuses.length - servedBefore;
    // The backlog (the usage-backlog metric) is the stream, which grew during the outage.
    expect(first.gateway.metering!.backlog).toBeGreaterThan(0);
    await cluster.start();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    running = false;
    await load;
    expect(servedDuring).toBeGreaterThan(50);
    const served = statuses.length;

    // Nothing missing: every request has its usage event and its charge once the store is back.
    const deadline = Date.now() + 30_000;
    let figures = await ledgerFigures(store, first.userId);
    while ((figures.events < served || figures.chargeEntries < served) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      figures = await ledgerFigures(store, first.userId);
    }
    expect(figures).toMatchObject({
      events: served,
      chargeEntries: served,
      usageCost: served * COST,
      charged: served * COST,
      balance: GRANTED - served * COST,
    });
    expect(await first.gateway.metering!.balanceOf(first.userId)).toEqual({
      balance: GRANTED - served * COST,
      held: 0,
    });
    const logs = [...first.logs, ...second.logs].join('');
    expect(logs).toMatch(/could not write settlements to the store/);
    expect(logs).toMatch(/store is back: wrote \d+ settlements/);
  }, 120_000);

  it('without Redis: spills settlements to disk during the outage (bounded memory), writes them after', async () => {
    upstream = await startMockUpstream({ scenario: { chunkCount: 10, latencyMs: 5 } });
    cluster = await startOwnPostgres();
    const store = openStore(cluster.url, { poolSize: 5 });
    await migrateToLatest(store);
    const dir = mkdtempSync(join(tmpdir(), 'gateway-spill-'));
    const spillFile = join(dir, 'spill.jsonl');
    const testStore: TestStore = {
      store,
      url: cluster.url,
      cleanup: async () => {
        await store.destroy();
        rmSync(dir, { recursive: true, force: true });
      },
    };
    const gateway = await startTestGateway({
      configText: testConfigText(upstream.url, 'billing:\n  require_credits: true\n'),
      testStore,
      deps: { redis: null, metering: { spillFile, maxQueued: 50 } },
    });
    instances.push(gateway);
    await applyLedgerEntry(store, { userId: gateway.userId, kind: 'grant', amount: GRANTED, reference: 'grant:spill' });

    const statuses: number[] = [];
    let running = true;
    let spilledSeen = false;
    const worker = async (index: number) => {
      for (let round = 0; running; round++) {
        const response = await chat(gateway.url, gateway.apiKey, { max_tokens: 10, stream: (index + round) % 2 === 0 });
        const text = await response.text();
        statuses.push(response.status);
        if (response.status !== 200) throw new Error(`status ${response.status} during the outage: ${text}`);
        spilledSeen ||= existsSync(spillFile);
        // Memory stays bounded: what the store cannot take is on disk.
        expect(gateway.gateway.metering!.backlog).toBeLessThanOrEqual(50 + 6);
      }
    };
    const load = Promise.all(Array.from({ length: 6 }, (_, index) => worker(index)));
    await new Promise((resolve) => setTimeout(resolve, 500));
    await cluster.stop();
    const servedBefore = statuses.length;
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const servedDuring = statuses.length - servedBefore;
    await cluster.start();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    running = false;
    await load;
    expect(servedDuring).toBeGreaterThan(50);
    expect(spilledSeen).toBe(true);
    const served = statuses.length;

    const deadline = Date.now() + 30_000;
    let figures = await ledgerFigures(store, gateway.userId);
    while ((figures.events < served || figures.chargeEntries < served) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      figures = await ledgerFigures(store, gateway.userId);
    }
    expect(figures).toMatchObject({
      events: served,
      chargeEntries: served,
      charged: served * COST,
      balance: GRANTED - served * COST,
    });
    expect(await gateway.gateway.metering!.balanceOf(gateway.userId)).toEqual({
      balance: GRANTED - served * COST,
      held: 0,
    });
    expect(gateway.gateway.metering!.backlog).toBe(0);
    expect(existsSync(spillFile)).toBe(false);
    const logs = gateway.logs.join('');
    expect(logs).toMatch(/spilling them to disk until it is back/);
    expect(logs).toMatch(/store is back: wrote \d+ settlements spilled to disk during the outage/);
  }, 120_000);
});

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { startOwnRedisCluster, type OwnRedisCluster } from '../helpers/own-redis-cluster.js';
import { applyLedgerEntry } from '../../src/credits/credit-ledger.js';
import { openRedisClient } from '../../src/store/redis-client.js';
import { HotKeyLayout } from '../../src/metering/redis-hot-keys.js';
import { randomId } from '../../src/shared/ids.js';
import { chat, holdOfChat, ledgerFigures } from './metering-helpers.js';

// "hello there" is 2 prompt words at $0.5/M and max_tokens 10 gives 10 words at $1.5/M.
const COST = 2 * 500 + 10 * 1500;

/**
 * Issue 30: metering and per-key limits on a Redis Cluster. Two gateway instances on PostgreSQL
 * share a 3-node cluster of this file's own on loopback (REDIS_URL=redis+cluster://…): credit
 * admission, settlement and hold release, rpm and tpm windows, the outage fallback while every
 * node is paused, and settlement after the whole cluster restarted empty. Every script's keys
 * carry the account's hash tag, so each runs in one slot; the hot-counter unit suite also runs on
 * a cluster (src/metering/hot-counters.test.ts, "redis cluster").
 */
describe('metering and limits on a 3-node Redis Cluster', () => {
  let cluster: OwnRedisCluster;
  let upstream: MockUpstream | undefined;
  let instances: TestGateway[] = [];
  beforeAll(async () => {
    cluster = await startOwnRedisCluster();
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  }, 30_000);
  afterEach(async () => {
    cluster.resume();
    for (const instance of instances.reverse()) await instance.close().catch(() => undefined);
    instances = [];
    await upstream?.close();
  }, 120_000);

  async function twoInstances(extra = '', prefix = `test:${randomId(10)}:`) {
    upstream = await startMockUpstream({ scenario: { chunkCount: 10, latencyMs: 10 } });
    const configText = testConfigText(upstream.url, extra);
    const first = await startTestGateway({
      configText,
      storeKind: 'postgres',
      deps: { redis: openRedisClient(cluster.url), redisKeyPrefix: prefix },
    });
    instances.push(first);
    const second = await startTestGateway({
      configText,
      testStore: first.testStore,
      deps: { redis: openRedisClient(cluster.url), redisKeyPrefix: prefix },
    });
    instances.push(second);
    return { first, second, prefix };
  }

  async function grant(gateway: TestGateway, amount: number) {
    await applyLedgerEntry(gateway.testStore.store, {
      userId: gateway.userId,
      kind: 'grant',
      amount,
      reference: `grant:${randomId(6)}`,
    });
  }

  it('admission, settlement and release: 120 concurrent requests over two instances, a balance for 20', async () => {
    const { first, second, prefix } = await twoInstances('billing:\n  require_credits: true\n');
    const balance = 20 * COST;
    await grant(first, balance);
    const statuses = await Promise.all(
      Array.from({ length: 120 }, async (_, index) => {
        const response = await chat([first, second][index % 2].url, first.apiKey, {
          max_tokens: 10,
          stream: index % 3 === 0,
        });
        await response.text();
        return response.status;
      }),
    );
    const served = statuses.filter((status) => status === 200).length;
    expect(statuses.filter((status) => status !== 200 && status !== 402)).toEqual([]);
    expect(served).toBeGreaterThanOrEqual(Math.floor(balance / holdOfChat(10)));
    expect(served).toBeLessThanOrEqual(20);
    // Read-your-writes on both instances: every charge is in the shared counters, no hold left.
    for (const instance of [first, second])
      expect(await instance.gateway.metering!.balanceOf(first.userId)).toEqual({
        balance: balance - served * COST,
        held: 0,
      });
    for (const instance of [first, second]) await instance.gateway.metering!.flush();
    const figures = await ledgerFigures(first.testStore.store, first.userId);
    expect({ events: figures.events, charges: figures.chargeEntries, charged: figures.charged }).toEqual({
      events: 120,
      charges: served,
      charged: served * COST,
    });
    for (const instance of [first, second]) expect(await instance.gateway.metering!.reconcile()).toEqual([]);
    // The account's counters are where the layout says: under its shard's hash tag.
    const layout = new HotKeyLayout(prefix);
    const { user } = layout.user(layout.shardOf(first.userId), first.userId);
    expect(user).toMatch(/\{m:\d+\}/);
    expect(await cluster.inspect().exists(user)).toBe(1);
  }, 120_000);

  it('rpm and tpm windows are shared by both instances', async () => {
    const { first, second } = await twoInstances();
    const rpmKey = await first.createKey({ rpmLimit: 3 });
    const rpm: number[] = [];
    for (let index = 0; index < 5; index++) {
      const response = await chat([first, second][index % 2].url, rpmKey, {});
      await response.text();
      rpm.push(response.status);
    }
    expect(rpm).toEqual([200, 200, 200, 429, 429]);
    // Each request uses 2 prompt + 10 completion tokens; 60 per minute admits five.
    const tpmKey = await first.createKey({ tpmLimit: 60 });
    const tpm: number[] = [];
    for (let index = 0; index < 7; index++) {
      const response = await chat([first, second][index % 2].url, tpmKey, { max_tokens: 10 });
      await response.text();
      tpm.push(response.status);
    }
    expect(tpm).toEqual([200, 200, 200, 200, 200, 429, 429]);
  }, 120_000);

  it('every node paused for 1 s under load (fail-open): nothing served beyond the balance, every answer charged', async () => {
    const { first, second } = await twoInstances(
      'billing:\n  require_credits: true\nlimits:\n  redis_failure_mode: open\n',
    );
    const balance = 30 * COST;
    await grant(first, balance);
    for (const instance of [first, second]) {
      const warm = await chat(instance.url, first.apiKey, { max_tokens: 10 });
      expect(warm.status).toBe(200);
      await warm.text();
    }
    const statuses: number[] = [200, 200];
    let stopping = false;
    const worker = async (index: number) => {
      for (let round = 0; round < 300; round++) {
        const response = await chat([first, second][(index + round) % 2].url, first.apiKey, { max_tokens: 10 });
        await response.text();
        statuses.push(response.status);
        if (stopping && response.status === 402) return;
        if (response.status === 503) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const done = Promise.all(Array.from({ length: 8 }, (_, index) => worker(index)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    cluster.pause();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    cluster.resume();
    stopping = true;
    await done;
    const served = statuses.filter((status) => status === 200).length;
    expect(statuses.filter((status) => ![200, 402, 503].includes(status))).toEqual([]);
    for (const instance of [first, second]) await instance.gateway.metering!.flush();
    const figures = await ledgerFigures(first.testStore.store, first.userId);
    expect({ served: served <= 30, events: figures.events, charged: figures.charged }).toEqual({
      served: true,
      events: statuses.length,
      charged: served * COST,
    });
    expect(figures.balance).toBe(balance - served * COST);
  }, 120_000);

  it('the whole cluster restarted empty: answers after it are recorded and charged, the instances stay ready', async () => {
    const { first, second } = await twoInstances('billing:\n  require_credits: true\n');
    await grant(first, 1_000_000_000);
    const serve = async (count: number) => {
      let served = 0;
      for (let index = 0; index < count; index++) {
        const response = await chat([first, second][index % 2].url, first.apiKey, { max_tokens: 10 });
        await response.text();
        if (response.status === 200) served++;
      }
      return served;
    };
    const untilCharged = async (served: number) => {
      const deadline = Date.now() + 30_000;
      let figures = await ledgerFigures(first.testStore.store, first.userId);
      while (figures.chargeEntries < served && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        figures = await ledgerFigures(first.testStore.store, first.userId);
      }
      return figures;
    };
    let served = await serve(6);
    expect(served).toBe(6);
    expect((await untilCharged(served)).chargeEntries).toBe(served);
    await cluster.restartEmpty();
    // A settlement writer meets the lost consumer groups on its next pass (every 200 ms). Waited
    // for before serving: the answers right after the restart may all be admitted fail-open and
    // written straight to the store, and a writer that first read the emptied cluster at shutdown
    // logged it too late for the check (the flake seen in redis-restarted-empty.test.ts).
    const lostGroupLogged = () => [...first.logs, ...second.logs].join('').includes('lost its consumer group');
    const loggedBy = Date.now() + 30_000;
    while (!lostGroupLogged() && Date.now() < loggedBy) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lostGroupLogged()).toBe(true);
    const deadline = Date.now() + 30_000;
    let after = 0;
    while (after < 6 && Date.now() < deadline) after += await serve(2);
    expect(after).toBeGreaterThanOrEqual(6);
    served += after;
    const figures = await untilCharged(served);
    expect({ charges: figures.chargeEntries, charged: figures.charged }).toEqual({
      charges: served,
      charged: served * COST,
    });
    for (const instance of [first, second]) {
      const deadlineReady = Date.now() + 15_000;
      let status = 0;
      while (status !== 200 && Date.now() < deadlineReady) {
        status = (await fetch(`${instance.url}/health/ready`)).status;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(status).toBe(200);
    }
  }, 180_000);
});

import { afterEach, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { applyLedgerEntry } from '../../src/credits/credit-ledger.js';
import { randomId } from '../../src/shared/ids.js';
import { openRedis } from '../../src/store/open-redis.js';
import { chat, holdOfChat, ledgerFigures } from './metering-helpers.js';

/**
 * Local admission (issue 31): with Redis healthy, a request whose hold this instance's outage
 * lease covers is admitted without a round trip; its settlement debits the lease. These tests
 * check that it is used, that it falls back to Redis when it must, and that the money and the
 * windows stay exact (one instance) or bounded (two).
 */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const CREDITS = `
billing:
  require_credits: true
`;
// "hello there" is 2 prompt words at $0.5/M and max_tokens 10 gives 10 words at $1.5/M.
const COST_PER_REQUEST = 2 * 500 + 10 * 1500;

describe('local admission from the lease (PostgreSQL + Redis)', () => {
  let upstream: MockUpstream | undefined;
  let instances: TestGateway[] = [];
  afterEach(async () => {
    for (const instance of instances.reverse()) await instance.close();
    instances = [];
    await upstream?.close();
    upstream = undefined;
  });

  async function start(count: number, extra = ''): Promise<TestGateway[]> {
    upstream ??= await startMockUpstream({ scenario: { chunkCount: 20, latencyMs: 5 } });
    const redis = { redis: openRedis(REDIS_URL), redisKeyPrefix: `test:${randomId(10)}:` };
    const first = await startTestGateway({
      configText: testConfigText(upstream.url, CREDITS + extra),
      storeKind: 'postgres',
      deps: redis,
    });
    instances.push(first);
    for (let index = 1; index < count; index++)
      instances.push(
        await startTestGateway({
          configText: testConfigText(upstream.url, CREDITS + extra),
          testStore: first.testStore,
          deps: redis,
        }),
      );
    return [...instances];
  }

  async function grant(target: TestGateway, amount: number): Promise<void> {
    await applyLedgerEntry(target.testStore.store, {
      userId: target.userId,
      kind: 'grant',
      amount,
      reference: `grant:${randomId(8)}`,
    });
  }

  /** Every request answered 200 is charged once at its cost, the balance moved by exactly that, no drift. */
  async function expectExact(targets: TestGateway[], served: number, granted: number): Promise<void> {
    const [first] = targets;
    for (const target of targets)
      expect(await target.gateway.metering!.balanceOf(first.userId)).toEqual({
        balance: granted - served * COST_PER_REQUEST,
        held: 0,
      });
    for (const target of targets) await target.gateway.metering!.flush();
    const figures = await ledgerFigures(first.testStore.store, first.userId);
    expect(figures.chargeEntries).toBe(served);
    expect(figures.usageCost).toBe(served * COST_PER_REQUEST);
    expect(figures.charged).toBe(figures.usageCost);
    expect(figures.balance).toBe(granted - figures.charged);
    expect(figures.balance).toBeGreaterThanOrEqual(0);
    for (const target of targets) expect(await target.gateway.metering!.reconcile()).toEqual([]);
  }

  it('admits from the lease without a round trip once the lease covers the hold, each request charged once', async () => {
    const [gateway] = await start(1);
    const granted = 1000 * COST_PER_REQUEST;
    await grant(gateway, granted);
    for (let index = 0; index < 20; index++) {
      const response = await chat(gateway.url, gateway.apiKey, { max_tokens: 10, stream: index % 2 === 0 });
      await response.text();
      expect(response.status).toBe(200);
      // Read-your-writes: the answer's end waited for its settlement, local or not.
      expect((await gateway.gateway.metering!.balanceOf(gateway.userId)).balance).toBe(
        granted - (index + 1) * COST_PER_REQUEST,
      );
    }
    const admissions = gateway.gateway.metering!.admissions!;
    // The first request asks Redis (it sets the lease aside); the lease then covers the others.
    expect(admissions.redis).toBeGreaterThanOrEqual(1);
    expect(admissions.local).toBeGreaterThanOrEqual(15);
    expect(admissions.local + admissions.redis).toBe(20);
    await expectExact([gateway], 20, granted);
  }, 60_000);

  it('asks Redis when turned off, for a key with a quota or credit limit, and for a tiny balance', async () => {
    const [off] = await start(1, 'limits:\n  local_admission: false\n');
    await grant(off, 1000 * COST_PER_REQUEST);
    for (let index = 0; index < 5; index++)
      expect((await chat(off.url, off.apiKey, { max_tokens: 10 })).status).toBe(200);
    expect(off.gateway.metering!.admissions).toEqual({ local: 0, redis: 5 });
    await off.close();
    instances = [];

    const [gateway] = await start(1);
    await grant(gateway, 1000 * COST_PER_REQUEST);
    const quotaKey = await gateway.createKey({ monthlyQuotaMicros: 1_000_000 });
    for (let index = 0; index < 5; index++)
      expect((await chat(gateway.url, quotaKey, { max_tokens: 10 })).status).toBe(200);
    expect(gateway.gateway.metering!.admissions).toEqual({ local: 0, redis: 5 });
    await gateway.close();
    instances = [];

    // A balance of three holds: the lease (a quarter of the free balance) never covers one.
    const [tiny] = await start(1);
    const granted = 3 * holdOfChat(10);
    await grant(tiny, granted);
    const statuses: number[] = [];
    for (let index = 0; index < 5; index++) {
      const response = await chat(tiny.url, tiny.apiKey, { max_tokens: 10 });
      await response.text();
      statuses.push(response.status);
    }
    expect(tiny.gateway.metering!.admissions!.local).toBe(0);
    const served = statuses.filter((status) => status === 200).length;
    expect(statuses.filter((status) => status !== 200 && status !== 402)).toEqual([]);
    expect(served).toBeGreaterThanOrEqual(3);
    await expectExact([tiny], served, granted);
  }, 60_000);

  it('two instances sharing a small balance under concurrency: never beyond the balance, each charge once', async () => {
    const targets = await start(2);
    const [first] = targets;
    const granted = 60 * COST_PER_REQUEST;
    await grant(first, granted);
    // Each instance sets its lease aside first (so the burst below is admitted locally where it can).
    for (const target of targets) expect((await chat(target.url, first.apiKey, { max_tokens: 10 })).status).toBe(200);
    const statuses = await Promise.all(
      Array.from({ length: 200 }, async (_, index) => {
        const response = await chat(targets[index % 2].url, first.apiKey, { max_tokens: 10, stream: index % 3 === 0 });
        await response.text();
        return response.status;
      }),
    );
    expect(statuses.filter((status) => status !== 200 && status !== 402)).toEqual([]);
    const served = statuses.filter((status) => status === 200).length + 2;
    // The balance covers 60 charges (holds are a little above a charge): never more.
    expect(served).toBeLessThanOrEqual(60);
    expect(served).toBeGreaterThanOrEqual(Math.floor(granted / holdOfChat(10)) / 2);
    const local = targets.reduce((sum, target) => sum + target.gateway.metering!.admissions!.local, 0);
    expect(local).toBeGreaterThan(0);
    await expectExact(targets, served, granted);
  }, 60_000);

  it('rpm on one instance is exact: local while the window is far from full, Redis near the limit', async () => {
    const [gateway] = await start(1);
    await grant(gateway, 1000 * COST_PER_REQUEST);
    const key = await gateway.createKey({ rpmLimit: 10 });
    const statuses: number[] = [];
    const remaining: Array<string | null> = [];
    for (let index = 0; index < 14; index++) {
      const response = await chat(gateway.url, key, { max_tokens: 10, stream: index % 2 === 1 });
      await response.text();
      statuses.push(response.status);
      remaining.push(response.headers.get('x-ratelimit-remaining-requests'));
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429, 429, 429, 429]);
    expect(remaining.slice(0, 10)).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0']);
    expect(gateway.gateway.metering!.admissions!.local).toBeGreaterThan(0);
    await expectExact([gateway], 10, 1000 * COST_PER_REQUEST);
  }, 60_000);

  it('rpm on one instance stays exact with requests in flight (units admitted locally and not yet settled count)', async () => {
    const [gateway] = await start(1);
    await grant(gateway, 1000 * COST_PER_REQUEST);
    const key = await gateway.createKey({ rpmLimit: 20 });
    expect((await chat(gateway.url, key, { max_tokens: 10 })).status).toBe(200);
    const statuses = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const response = await chat(gateway.url, key, { max_tokens: 10, stream: true });
        await response.text();
        return response.status;
      }),
    );
    expect(statuses.filter((status) => status === 200).length).toBe(19);
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    await expectExact([gateway], 20, 1000 * COST_PER_REQUEST);
  }, 60_000);

  it('rpm across two instances overshoots by at most half the limit per other instance', async () => {
    const targets = await start(2);
    const [first] = targets;
    await grant(first, 1000 * COST_PER_REQUEST);
    const key = await first.createKey({ rpmLimit: 20 });
    for (const target of targets) expect((await chat(target.url, key, { max_tokens: 10 })).status).toBe(200);
    const statuses = await Promise.all(
      Array.from({ length: 60 }, async (_, index) => {
        const response = await chat(targets[index % 2].url, key, { max_tokens: 10, stream: true });
        await response.text();
        return response.status;
      }),
    );
    const served = statuses.filter((status) => status === 200).length + 2;
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    expect(served).toBeGreaterThanOrEqual(20);
    expect(served).toBeLessThanOrEqual(20 + 10);
    await expectExact(targets, served, 1000 * COST_PER_REQUEST);
  }, 60_000);
});

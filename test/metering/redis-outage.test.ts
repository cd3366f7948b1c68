import { afterEach, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { startOwnRedis, type OwnRedis } from '../helpers/own-redis.js';
import { applyLedgerEntry } from '../../src/credits/credit-ledger.js';
import { openRedis } from '../../src/store/open-redis.js';
import { chat, holdOfChat, ledgerFigures } from './metering-helpers.js';

// "hello there" is 2 prompt words at $0.5/M and max_tokens 10 gives 10 words at $1.5/M.
const COST = 2 * 500 + 10 * 1500;
const BALANCE = 50 * COST;

describe('Redis down (fail-open): credit is spent only from the outage lease set aside before, money stays exact', () => {
  let upstream: MockUpstream | undefined;
  let redis: OwnRedis | undefined;
  let instances: TestGateway[] = [];
  afterEach(async () => {
    for (const instance of instances.reverse()) await instance.close();
    instances = [];
    await redis?.stop();
    await upstream?.close();
  });

  it('300 concurrent requests over two instances against a balance that covers 50', async () => {
    upstream = await startMockUpstream({ scenario: { chunkCount: 20, latencyMs: 20 } });
    redis = await startOwnRedis();
    const configText = testConfigText(upstream.url, 'billing:\n  require_credits: true\n');
    const first = await startTestGateway({ configText, storeKind: 'postgres', deps: { redis: openRedis(redis.url) } });
    instances.push(first);
    const second = await startTestGateway({
      configText,
      testStore: first.testStore,
      deps: { redis: openRedis(redis.url) },
    });
    instances.push(second);
    const { store } = first.testStore;
    await applyLedgerEntry(store, {
      userId: first.userId,
      kind: 'grant',
      amount: BALANCE,
      reference: 'grant:redis-down',
    });
    // Served once with Redis up (counters loaded), then Redis goes away.
    const warm = await chat(first.url, first.apiKey, { max_tokens: 10 });
    expect(warm.status).toBe(200);
    await warm.text();
    // Its settlement is in the Redis stream until a writer moves it to the store; this Redis keeps
    // nothing on disk, so stopping it first would lose the record with it.
    await first.gateway.metering!.flush();
    await redis.stop();

    const started = Date.now();
    const statuses = await Promise.all(
      Array.from({ length: 300 }, async (_, index) => {
        const response = await chat([first, second][index % 2].url, first.apiKey, {
          max_tokens: 10,
          stream: index % 2 === 0,
        });
        await response.text();
        return response.status;
      }),
    );
    // No answer waited for a settlement Redis could not take.
    expect(Date.now() - started).toBeLessThan(20_000);
    // Beyond the lease: 503 limits_unavailable (the balance is not known without Redis).
    expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    const served = statuses.filter((status) => status === 200).length + 1;
    // The first instance set aside a quarter of the free balance when it served the first request:
    // at least as many holds as fit in it at once are served from it (more as finished requests
    // leave only their cost spent), never more than its cost covers; the second instance had none.
    const lease = Math.floor((BALANCE - holdOfChat(10)) / 4);
    expect(served - 1).toBeGreaterThanOrEqual(Math.floor(lease / holdOfChat(10)));
    expect(served - 1).toBeLessThanOrEqual(Math.floor(lease / COST));
    expect(served).toBeLessThanOrEqual(50);

    for (const instance of instances) await instance.gateway.metering!.flush();
    const figures = await ledgerFigures(store, first.userId);
    expect(figures.events).toBe(1 + statuses.length);
    expect(figures.chargeEntries).toBe(served);
    expect(figures.charged).toBe(served * COST);
    expect(figures.balance).toBe(BALANCE - served * COST);
    // Nothing is held in the store any more (the fallback that held there saw no Redis holds).
    expect(await store.db.selectFrom('credit_holds').selectAll().execute()).toEqual([]);
    expect(await first.gateway.metering!.balanceOf(first.userId)).toEqual({
      balance: BALANCE - served * COST,
      held: 0,
    });
    expect([...first.logs, ...second.logs].join('')).toMatch(
      /credit only from this instance's outage lease \(fail-open\)/,
    );
  }, 90_000);
});

import { afterEach, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { applyLedgerEntry } from '../../src/credits/credit-ledger.js';
import { randomId } from '../../src/shared/ids.js';
import { chat, holdOfChat, ledgerFigures } from './metering-helpers.js';
import { openRedis } from '../../src/store/open-redis.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const CREDITS = `
billing:
  require_credits: true
`;
// "hello there" is 2 prompt words at $0.5/M and max_tokens 10 gives 10 words at $1.5/M.
const COST_PER_REQUEST = 2 * 500 + 10 * 1500;
const BALANCE = 50 * COST_PER_REQUEST;

describe('300 concurrent requests against a balance that covers 50', () => {
  let upstream: MockUpstream | undefined;
  let instances: TestGateway[] = [];
  afterEach(async () => {
    for (const instance of instances.reverse()) await instance.close();
    instances = [];
    await upstream?.close();
  });

  async function run(targets: TestGateway[]) {
    const [first] = targets;
    await applyLedgerEntry(first.testStore.store, {
      userId: first.userId,
      kind: 'grant',
      amount: BALANCE,
      reference: 'grant:concurrency',
    });
    const responses = await Promise.all(
      Array.from({ length: 300 }, async (_, index) => {
        const response = await chat(targets[index % targets.length].url, first.apiKey, {
          max_tokens: 10,
          stream: index % 2 === 0,
        });
        await response.text();
        return response.status;
      }),
    );
    const succeeded = responses.filter((status) => status === 200).length;
    // Read-your-writes: before anything reached the store, every instance's balance has every charge.
    for (const target of targets)
      expect(await target.gateway.metering!.balanceOf(first.userId)).toEqual({
        balance: BALANCE - succeeded * COST_PER_REQUEST,
        held: 0,
      });
    for (const target of targets) await target.gateway.metering!.flush();
    expect(responses.filter((status) => status !== 200 && status !== 402)).toEqual([]);
    // Holds are the estimated maximum (a little above the actual cost): at least as many as fit at once succeed.
    expect(succeeded).toBeGreaterThanOrEqual(Math.floor(BALANCE / holdOfChat(10)));
    expect(succeeded).toBeLessThanOrEqual(50);
    const figures = await ledgerFigures(first.testStore.store, first.userId);
    expect(figures.events).toBe(300);
    expect(figures.chargeEntries).toBe(succeeded);
    expect(figures.usageCost).toBe(succeeded * COST_PER_REQUEST);
    expect(figures.charged).toBe(figures.usageCost);
    expect(figures.balance).toBe(BALANCE - figures.charged);
    expect(figures.balance).toBeGreaterThanOrEqual(0);
    for (const target of targets) {
      expect((await target.gateway.metering!.balanceOf(first.userId)).held).toBe(0);
      expect(await target.gateway.metering!.reconcile()).toEqual([]);
    }
  }

  it('one instance on SQLite, holds in memory', async () => {
    upstream = await startMockUpstream({ scenario: { chunkCount: 20, latencyMs: 20 } });
    instances.push(await startTestGateway({ configText: testConfigText(upstream.url, CREDITS) }));
    await run(instances);
  }, 60_000);

  it('two instances on PostgreSQL + Redis', async () => {
    upstream = await startMockUpstream({ scenario: { chunkCount: 20, latencyMs: 20 } });
    const redis = { redis: openRedis(REDIS_URL), redisKeyPrefix: `test:${randomId(10)}:` };
    const first = await startTestGateway({
      configText: testConfigText(upstream.url, CREDITS),
      storeKind: 'postgres',
      deps: redis,
    });
    instances.push(first);
    instances.push(
      await startTestGateway({
        configText: testConfigText(upstream.url, CREDITS),
        testStore: first.testStore,
        deps: redis,
      }),
    );
    await run(instances);
  }, 60_000);
});

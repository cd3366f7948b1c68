import { afterEach, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { startOwnRedis, type OwnRedis } from '../helpers/own-redis.js';
import { applyLedgerEntry } from '../../src/credits/credit-ledger.js';
import { openRedis } from '../../src/store/open-redis.js';
import { chat, ledgerFigures } from './metering-helpers.js';

// "hello there" is 2 prompt words at $0.5/M and max_tokens 10 gives 10 words at $1.5/M.
const COST = 2 * 500 + 10 * 1500;
const BALANCE = 50 * COST;

/**
 * Issue 25, items 1 and 2: while Redis does not answer, an instance may spend only what it set
 * aside before (its lease); when Redis is back it sees everything spent meanwhile. Two instances
 * on PostgreSQL and a Redis of the test's own that is paused (SIGSTOP) under load: the sum served
 * never exceeds the balance and no charge is cut to fit it.
 */
describe('spending during a Redis fault is bounded by what was set aside before it', () => {
  let upstream: MockUpstream | undefined;
  let redis: OwnRedis | undefined;
  let instances: TestGateway[] = [];
  afterEach(async () => {
    redis?.resume();
    for (const instance of instances.reverse()) await instance.close().catch(() => undefined);
    instances = [];
    await redis?.stop();
    await upstream?.close();
  });

  async function twoInstances(mode: 'open' | 'closed') {
    upstream = await startMockUpstream({ scenario: { chunkCount: 10, latencyMs: 10 } });
    redis = await startOwnRedis();
    const configText = testConfigText(
      upstream.url,
      `billing:\n  require_credits: true\nlimits:\n  redis_failure_mode: ${mode}\n`,
    );
    const first = await startTestGateway({ configText, storeKind: 'postgres', deps: { redis: openRedis(redis.url) } });
    instances.push(first);
    const second = await startTestGateway({
      configText,
      testStore: first.testStore,
      deps: { redis: openRedis(redis.url) },
    });
    instances.push(second);
    await applyLedgerEntry(first.testStore.store, {
      userId: first.userId,
      kind: 'grant',
      amount: BALANCE,
      reference: 'grant:redis-fault',
    });
    return [first, second] as const;
  }

  /** Workers send requests over both instances until stop() and then until every worker saw a 402. */
  function load(targets: readonly TestGateway[], apiKey: string) {
    const statuses: number[] = [];
    let stopping = false;
    const worker = async (index: number) => {
      for (let round = 0; round < 400; round++) {
        const response = await chat(targets[(index + round) % targets.length].url, apiKey, {
          max_tokens: 10,
          stream: round % 2 === 0,
        });
        const text = await response.text();
        statuses.push(response.status);
        if (response.status === 200 && response.headers.get('content-type')?.includes('event-stream'))
          expect(text).toContain('[DONE]');
        if (stopping && response.status === 402) return;
        if (response.status === 503) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const done = Promise.all(Array.from({ length: 12 }, (_, index) => worker(index)));
    return {
      statuses,
      async finish() {
        stopping = true;
        await done;
        return statuses;
      },
    };
  }

  async function expectNothingServedBeyondTheBalance(first: TestGateway, statuses: number[]) {
    const served = statuses.filter((status) => status === 200).length;
    expect(statuses.filter((status) => ![200, 402, 503].includes(status))).toEqual([]);
    for (const instance of instances) await instance.gateway.metering!.flush();
    const figures = await ledgerFigures(first.testStore.store, first.userId);
    // Every answer recorded and charged at its full cost, and no more answers than the balance covers.
    expect({ served: served <= 50, events: figures.events, charged: figures.charged }).toEqual({
      served: true,
      events: statuses.length,
      charged: served * COST,
    });
    expect(figures.balance).toBe(BALANCE - served * COST);
    expect(instances.flatMap((instance) => instance.logs).join('')).not.toMatch(/usage cost exceeded the balance/);
    return served;
  }

  for (const mode of ['open', 'closed'] as const) {
    it(`Redis paused for 1.5 s under load (${mode}): nothing served beyond the balance, nothing free`, async () => {
      const [first, second] = await twoInstances(mode);
      // Both instances have served the account (its counters are loaded) before the fault.
      for (const instance of [first, second]) {
        const warm = await chat(instance.url, first.apiKey, { max_tokens: 10 });
        expect(warm.status).toBe(200);
        await warm.text();
      }
      const running = load([first, second], first.apiKey);
      redis!.pause();
      const before = running.statuses.length;
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const during = running.statuses.slice(before);
      redis!.resume();
      // Fail-open serves from the leases set aside before the fault; fail-closed refuses with 503.
      expect(during.filter((status) => status === (mode === 'open' ? 200 : 503)).length).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const statuses = await running.finish();
      const served = (await expectNothingServedBeyondTheBalance(first, [200, 200, ...statuses])) - 2;
      expect(served).toBeGreaterThan(0);
    }, 120_000);

    it(`Redis paused for 0.7 s, then back (${mode}): what was held during the fault is seen by Redis after`, async () => {
      const [first, second] = await twoInstances(mode);
      for (const instance of [first, second]) {
        const warm = await chat(instance.url, first.apiKey, { max_tokens: 10 });
        await warm.text();
      }
      const running = load([first, second], first.apiKey);
      await new Promise((resolve) => setTimeout(resolve, 50));
      redis!.pause();
      await new Promise((resolve) => setTimeout(resolve, 700));
      redis!.resume();
      const statuses = await running.finish();
      await expectNothingServedBeyondTheBalance(first, [200, 200, ...statuses]);
    }, 120_000);
  }
});

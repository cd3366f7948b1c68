import { afterEach, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { startOwnRedis, type OwnRedis } from '../helpers/own-redis.js';
import { applyLedgerEntry } from '../../src/credits/credit-ledger.js';
import { openRedis } from '../../src/store/open-redis.js';
import { chat, ledgerFigures } from './metering-helpers.js';
import { startOwnPostgres, type OwnPostgres } from '../helpers/own-postgres.js';
import { openStore } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import type { TestStore } from '../helpers/test-store.js';

// "hello there" is 2 prompt words at $0.5/M and max_tokens 10 gives 10 words at $1.5/M.
const COST = 2 * 500 + 10 * 1500;
const GRANTED = 1_000_000_000;

/**
 * Issue 25, item 3: after Redis restarted without its data, the settlement writers remembered
 * their consumer group forever, every read failed with NOGROUP, and usage and charges stopped
 * being written until a gateway restarted, while /health/ready stayed ready.
 */
describe('Redis restarted empty: settlement goes on', () => {
  let upstream: MockUpstream | undefined;
  let redis: OwnRedis | undefined;
  let instances: TestGateway[] = [];
  let cluster: OwnPostgres | undefined;
  afterEach(async () => {
    for (const instance of instances.reverse()) await instance.close().catch(() => undefined);
    instances = [];
    await redis?.stop();
    await upstream?.close();
    await cluster?.destroy();
    cluster = undefined;
  });

  async function serve(targets: TestGateway[], apiKey: string, count: number) {
    let served = 0;
    for (let index = 0; index < count; index++) {
      const response = await chat(targets[index % targets.length].url, apiKey, { max_tokens: 10 });
      await response.text();
      if (response.status === 200) served++;
    }
    return served;
  }

  async function untilRecorded(first: TestGateway, served: number) {
    const deadline = Date.now() + 20_000;
    let figures = await ledgerFigures(first.testStore.store, first.userId);
    while (figures.chargeEntries < served && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      figures = await ledgerFigures(first.testStore.store, first.userId);
    }
    return figures;
  }

  /** How many times the instances have logged that a settlement stream lost its consumer group. */
  function groupLossesLogged(targets: TestGateway[]): number {
    return targets.flatMap((target) => target.logs).filter((line) => line.includes('lost its consumer group')).length;
  }

  /**
   * Waits until a settlement writer has met the lost group (its pass runs every 200 ms). Without
   * this wait the answers served right after the restart could all be admitted fail-open while the
   * connections came back and written straight to the store, and the test ended before any writer
   * read the emptied Redis: the log line checked below was then written only at shutdown (the
   * failure seen in CI), and the stream's recovery was not exercised at all.
   */
  async function untilGroupLossLogged(targets: TestGateway[], before: number): Promise<number> {
    const deadline = Date.now() + 15_000;
    while (groupLossesLogged(targets) <= before && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return groupLossesLogged(targets);
  }

  it('twice: every answer served after each restart is recorded and charged, and the instances stay ready', async () => {
    upstream = await startMockUpstream({ scenario: { chunkCount: 10, latencyMs: 5 } });
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
    await applyLedgerEntry(first.testStore.store, {
      userId: first.userId,
      kind: 'grant',
      amount: GRANTED,
      reference: 'grant:restart',
    });
    let served = await serve([first, second], first.apiKey, 10);
    expect(await untilRecorded(first, served)).toMatchObject({ chargeEntries: served });

    for (let restart = 0; restart < 2; restart++) {
      const lossesBefore = groupLossesLogged([first, second]);
      await redis.kill();
      await redis.start();
      expect(await untilGroupLossLogged([first, second], lossesBefore)).toBeGreaterThan(lossesBefore);
      // Back after the reconnect back-off (at most 2 s): requests are served again.
      const deadline = Date.now() + 15_000;
      let after = 0;
      while (after < 10 && Date.now() < deadline) after += await serve([first, second], first.apiKey, 2);
      served += after;
      expect(after).toBeGreaterThanOrEqual(10);
      const figures = await untilRecorded(first, served);
      expect({ events: figures.events >= served, charges: figures.chargeEntries, charged: figures.charged }).toEqual({
        events: true,
        charges: served,
        charged: served * COST,
      });
      for (const instance of [first, second]) {
        const ready = await fetch(`${instance.url}/health/ready`);
        expect(ready.status).toBe(200);
      }
    }
  }, 120_000);

  it('answers whose settlements were still in the lost stream are recorded and charged all the same', async () => {
    upstream = await startMockUpstream({ scenario: { chunkCount: 10, latencyMs: 5 } });
    redis = await startOwnRedis();
    cluster = await startOwnPostgres();
    const store = openStore(cluster.url, { poolSize: 5 });
    await migrateToLatest(store);
    const testStore: TestStore = { store, url: cluster.url, cleanup: () => store.destroy() };
    const configText = testConfigText(upstream.url, 'billing:\n  require_credits: true\n');
    const first = await startTestGateway({ configText, testStore, deps: { redis: openRedis(redis.url) } });
    instances.push(first);
    await applyLedgerEntry(store, { userId: first.userId, kind: 'grant', amount: GRANTED, reference: 'grant:lost' });
    let served = await serve([first], first.apiKey, 3);
    expect(await untilRecorded(first, served)).toMatchObject({ chargeEntries: served });
    // The store stops: settlements wait in the Redis stream; then Redis restarts without its data.
    await cluster.stop();
    const during = await serve([first], first.apiKey, 10);
    expect(during).toBeGreaterThan(0);
    served += during;
    await redis.kill();
    await redis.start();
    await cluster.start();
    const figures = await untilRecorded(first, served);
    expect({ charges: figures.chargeEntries, charged: figures.charged }).toEqual({
      charges: served,
      charged: served * COST,
    });
    expect(first.logs.join('')).toMatch(/Redis lost its data/);
  }, 120_000);
});

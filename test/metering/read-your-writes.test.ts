import { afterEach, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { applyLedgerEntry } from '../../src/credits/credit-ledger.js';
import { randomId } from '../../src/shared/ids.js';
import { openRedis } from '../../src/store/open-redis.js';
import { accountGet, chat, signIn } from './metering-helpers.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const CREDITS = 'billing:\n  require_credits: true\n';
// "hello there": 2 prompt tokens at $0.5/M, 10 completion tokens at $1.5/M.
const COST = 2 * 500 + 10 * 1500;

describe('read-your-writes: a balance read right after a response includes its charge', () => {
  let upstream: MockUpstream | undefined;
  let instances: TestGateway[] = [];
  afterEach(async () => {
    for (const instance of instances.reverse()) await instance.close();
    instances = [];
    await upstream?.close();
  });

  async function check(serving: TestGateway[], reading: TestGateway[]) {
    const [first] = serving;
    const granted = 1_000_000;
    await applyLedgerEntry(first.testStore.store, {
      userId: first.userId,
      kind: 'grant',
      amount: granted,
      reference: `grant:${randomId(6)}`,
    });
    const tokens = await Promise.all(reading.map((instance) => signIn(instance)));
    for (let index = 0; index < 8; index++) {
      const response = await chat(serving[index % serving.length].url, first.apiKey, {
        max_tokens: 10,
        stream: index % 2 === 1,
      });
      expect(response.status).toBe(200);
      await response.text();
      for (const [position, instance] of reading.entries()) {
        const balance = await accountGet(instance, tokens[position], '/api-account/user/balance');
        expect(balance.body).toMatchObject({ balance_nanos: granted - (index + 1) * COST, held_nanos: 0 });
      }
    }
  }

  it('one instance on SQLite', async () => {
    upstream = await startMockUpstream({ scenario: { chunkCount: 20 } });
    const gateway = await startTestGateway({ configText: testConfigText(upstream.url, CREDITS) });
    instances.push(gateway);
    await check([gateway], [gateway]);
  }, 60_000);

  it('two instances on PostgreSQL + Redis, read on both', async () => {
    upstream = await startMockUpstream({ scenario: { chunkCount: 20 } });
    const deps = { redis: openRedis(REDIS_URL), redisKeyPrefix: `test:${randomId(10)}:` };
    const first = await startTestGateway({
      configText: testConfigText(upstream.url, CREDITS),
      storeKind: 'postgres',
      deps,
    });
    instances.push(first);
    const second = await startTestGateway({
      configText: testConfigText(upstream.url, CREDITS),
      testStore: first.testStore,
      deps,
    });
    instances.push(second);
    // The second instance's test user is another account; the first one's key and balance are read on both.
    await check([first, second], [first, { ...second, email: first.email }]);
  }, 60_000);
});

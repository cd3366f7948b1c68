import { afterEach, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { randomId } from '../../src/shared/ids.js';
import { STORE_KINDS, type StoreKind } from '../helpers/test-store.js';
import {
  startTestGateway,
  testConfigText,
  type TestGateway,
  type TestGatewayOptions,
} from '../helpers/test-gateway.js';
import { AccountClient, requestJson } from '../helpers/account-client.js';

/**
 * Two gateway instances share one store: a key revoked or disabled on one stops working on the
 * other within a second: by polling the store's key_changes feed (every 500 ms by default), and
 * with Redis by pub/sub (here the polling is slowed to a minute, so only Redis can be in time).
 */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const WITHIN_MS = 1_000;

const started: Array<TestGateway | MockUpstream> = [];
afterEach(async () => {
  // The second instance first: the first owns the store.
  for (const item of started.reverse()) await item.close();
  started.length = 0;
});

async function twoInstances(storeKind: StoreKind, options: Partial<TestGatewayOptions>) {
  const upstream = await startMockUpstream({ scenario: { chunkCount: 2 } });
  started.push(upstream);
  const configText = testConfigText(upstream.url);
  const first = await startTestGateway({ configText, storeKind, ...options });
  started.push(first);
  const second = await startTestGateway({ configText, testStore: first.testStore, ...options });
  started.push(second);
  return { first, second, account: await AccountClient.signUp(first.url) };
}

function statusOn(gateway: TestGateway, key: string): Promise<number> {
  return requestJson(gateway.url, 'GET', '/v1/models', undefined, { authorization: `Bearer ${key}` }).then(
    (response) => response.status,
  );
}

/** Asks every 20 ms until the instance answers `status`; returns how long that took. */
async function timeUntil(gateway: TestGateway, key: string, status: number, since: number): Promise<number> {
  for (;;) {
    if ((await statusOn(gateway, key)) === status) return Date.now() - since;
    if (Date.now() - since > 5_000) throw new Error(`the other instance still did not answer ${status} after 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function revokeAndMeasure(first: TestGateway, second: TestGateway, account: AccountClient) {
  const created = (await account.request('POST', '/api-account/user/api-keys', { name: 'shared' })).body;
  // Both instances have the key cached as valid.
  expect(await statusOn(first, created.key)).toBe(200);
  expect(await statusOn(second, created.key)).toBe(200);

  const disabledAt = Date.now();
  expect(
    (await account.request('PATCH', `/api-account/user/api-keys/${created.key_id}`, { disabled: true })).status,
  ).toBe(200);
  const disableSeenAfter = await timeUntil(second, created.key, 403, disabledAt);
  await account.request('PATCH', `/api-account/user/api-keys/${created.key_id}`, { disabled: false });
  await timeUntil(second, created.key, 200, Date.now());

  const deletedAt = Date.now();
  expect((await account.request('DELETE', `/api-account/user/api-keys/${created.key_id}`)).status).toBe(200);
  expect(await statusOn(first, created.key)).toBe(401);
  const deleteSeenAfter = await timeUntil(second, created.key, 401, deletedAt);
  return { disableSeenAfter, deleteSeenAfter };
}

describe.each(STORE_KINDS)('revocation across two instances on %s, store polling only', (storeKind) => {
  it(`reaches the other instance within ${WITHIN_MS} ms`, async () => {
    const { first, second, account } = await twoInstances(storeKind, {
      deps: { keyCacheOptions: { pollIntervalMs: 500 } },
    });
    const { disableSeenAfter, deleteSeenAfter } = await revokeAndMeasure(first, second, account);
    expect(disableSeenAfter).toBeLessThan(WITHIN_MS);
    expect(deleteSeenAfter).toBeLessThan(WITHIN_MS);
  });
});

describe('revocation across two instances on PostgreSQL + Redis', () => {
  it(`reaches the other instance through pub/sub within ${WITHIN_MS} ms while polling is a minute apart`, async () => {
    const { first, second, account } = await twoInstances('postgres', {
      env: { REDIS_URL },
      deps: { keyCacheOptions: { pollIntervalMs: 60_000 }, redisKeyPrefix: `test-${randomId(12)}:` },
    });
    const { disableSeenAfter, deleteSeenAfter } = await revokeAndMeasure(first, second, account);
    expect(disableSeenAfter).toBeLessThan(WITHIN_MS);
    expect(deleteSeenAfter).toBeLessThan(WITHIN_MS);
  });

  it('keeps working when Redis is unreachable: the store feed still carries the change', async () => {
    const { first, second, account } = await twoInstances('postgres', {
      env: { REDIS_URL: 'redis://127.0.0.1:1' },
      deps: { keyCacheOptions: { pollIntervalMs: 200 } },
    });
    const created = (await account.request('POST', '/api-account/user/api-keys', { name: 'no redis' })).body;
    expect(await statusOn(second, created.key)).toBe(200);
    const deletedAt = Date.now();
    expect((await account.request('DELETE', `/api-account/user/api-keys/${created.key_id}`)).status).toBe(200);
    expect(await timeUntil(second, created.key, 401, deletedAt)).toBeLessThan(WITHIN_MS);
    expect(first.logs.join('')).toContain('Redis for API key invalidation is unavailable');
  });
});

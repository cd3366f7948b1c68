import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { AccountClient, requestJson } from '../helpers/account-client.js';
import { STORE_KINDS } from '../helpers/test-store.js';
import { applyLedgerEntry, getBalance } from '../../src/credits/credit-ledger.js';
import { MAX_BALANCE_NANOS } from '../../src/credits/balance-limit.js';
import { openRedis } from '../../src/store/open-redis.js';
import { setRole } from '../../src/users/user-roles.js';
import { randomId, randomIdGenerator } from '../../src/shared/ids.js';

/**
 * Issue 25, item 6: a balance above 2^53 nano-USD (about 9,007,199 USD) made the account's pages
 * answer 500 (PostgreSQL's driver refuses the BIGINT) and its /v1 requests 503, and on SQLite the
 * balance silently became a rounded double. Balances are now capped at 1,000,000 USD: grants and
 * checkouts past it are a 400 `balance_limit_exceeded`, no credit of any kind passes 2^53, and an
 * account at the cap is served and charged exactly.
 */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const USD = 1_000_000_000;
const CONFIG = 'billing:\n  require_credits: true\n  payment_provider: sandbox\n';

describe.each(STORE_KINDS)('a balance above 2^53 nano-USD (%s)', (storeKind) => {
  let upstream: MockUpstream;
  let gateway: TestGateway;
  let owner: AccountClient;
  let admin: AccountClient;

  beforeAll(async () => {
    upstream = await startMockUpstream({ scenario: { chunkCount: 2 } });
    gateway = await startTestGateway({
      configText: testConfigText(upstream.url, CONFIG),
      storeKind,
      // Production's shape on PostgreSQL: the hot counters in Redis (the 503 came from there).
      deps: storeKind === 'postgres' ? { redis: openRedis(REDIS_URL), redisKeyPrefix: `test:${randomId(10)}:` } : {},
    });
    const signIn = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
      email: gateway.email,
      password: 'plum-orbit-42-lantern',
    });
    owner = new AccountClient(gateway.url, signIn.body.token, gateway.email);
    admin = await AccountClient.signUp(gateway.url, `admin-${randomIdGenerator.next('').toLowerCase()}@example.com`);
    await setRole(gateway.testStore.store.db, (await admin.request('GET', '/api-account/user/me')).body.id, 'admin', 0);
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  const grant = (amount: number | string) =>
    admin.request('POST', `/api-account/admin/users/${gateway.userId}/credits`, { amount, reason: 'test' });
  const expectLimit = (response: { status: number; body: any }) => {
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'balance_limit_exceeded',
      param: 'amount',
    });
    expect(response.body.error.message).toMatch(/at most 1000000 USD/);
  };

  it('refuses grants and checkouts past the cap, and an account at the cap keeps its pages and /v1 working', async () => {
    // The probe's way to 2^53: two grants of 5 million.
    expectLimit(await grant(5_000_000));
    expect(await getBalance(gateway.testStore.store, gateway.userId)).toBe(0);

    expect((await grant(999_990)).status).toBe(200);
    // A checkout counts its pending order: the first fits, the second would pass the cap.
    const first = await owner.request('POST', '/api-account/user/billing/create-checkout', { amount: 10 });
    expect(first.status, first.text).toBe(200);
    expectLimit(await owner.request('POST', '/api-account/user/billing/create-checkout', { amount: 5 }));
    const paid = await owner.request('POST', `/api-account/billing/sandbox/${first.body.session_id}/confirm`);
    expect(paid.body.status).toBe('paid');
    expect(await getBalance(gateway.testStore.store, gateway.userId)).toBe(MAX_BALANCE_NANOS);
    expectLimit(await grant('0.000000001'));
    expectLimit(await owner.request('POST', '/api-account/user/billing/create-checkout', { amount: 5 }));
    // Whatever the kind, no credit takes a balance past 2^53 (a purchase is only capped there).
    await expect(
      applyLedgerEntry(gateway.testStore.store, {
        userId: gateway.userId,
        kind: 'purchase',
        amount: 8_100_000 * USD,
        reference: 'purchase:too-much',
      }),
    ).rejects.toMatchObject({ code: 'balance_limit_exceeded' });
    expect(await getBalance(gateway.testStore.store, gateway.userId)).toBe(MAX_BALANCE_NANOS);

    for (const path of [
      '/api-account/user/me',
      '/api-account/user/balance',
      '/api-account/user/billing',
      '/api-account/user/transactions',
      '/api-account/user/usage',
    ]) {
      const page = await owner.request('GET', path);
      expect(page.status, `${path}: ${page.text}`).toBe(200);
    }
    expect((await owner.request('GET', '/api-account/user/balance')).body).toMatchObject({
      balance: 1_000_000,
      balance_nanos: MAX_BALANCE_NANOS,
    });

    const chat = await requestJson(
      gateway.url,
      'POST',
      '/v1/chat/completions',
      { model: 'test/chat', messages: [{ role: 'user', content: 'hello' }], max_tokens: 50 },
      { authorization: `Bearer ${gateway.apiKey}` },
    );
    expect(chat.status, chat.text).toBe(200);
    // Charged exactly: the balance is the cap minus the request's cost, to the nano.
    let balance = MAX_BALANCE_NANOS;
    for (let attempt = 0; attempt < 200 && balance === MAX_BALANCE_NANOS; attempt++) {
      await gateway.gateway.metering!.writer.flush();
      balance = await getBalance(gateway.testStore.store, gateway.userId);
      if (balance === MAX_BALANCE_NANOS) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { prompt_tokens: prompt, completion_tokens: completion } = chat.body.usage;
    expect(balance).toBe(MAX_BALANCE_NANOS - (prompt * 500 + completion * 1500));
    // Deductions still work on an account at the cap.
    expect((await grant(-1)).body.balance_nanos).toBe(balance - USD);
  }, 60_000);
});

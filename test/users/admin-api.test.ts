import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { setRole } from '../../src/users/user-roles.js';
import { getBalance } from '../../src/credits/credit-ledger.js';
import { createApiKey } from '../../src/keys/create-api-key.js';
import { randomIdGenerator } from '../../src/shared/ids.js';
import { STORE_KINDS } from '../helpers/test-store.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { AccountClient, requestJson } from '../helpers/account-client.js';

/** The admin API under /api-account/admin/*, through HTTP, on both stores. */
describe.each(STORE_KINDS)('admin API (%s)', (storeKind) => {
  let upstream: MockUpstream;
  let gateway: TestGateway;
  let admin: AccountClient;
  let adminId: string;
  let member: AccountClient;
  let memberId: string;

  const idOf = async (client: AccountClient) => (await client.request('GET', '/api-account/user/me')).body.id as string;
  const chat = (key: string) =>
    requestJson(
      gateway.url,
      'POST',
      '/v1/chat/completions',
      { model: 'test/chat', messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${key}` },
    );

  beforeAll(async () => {
    upstream = await startMockUpstream();
    gateway = await startTestGateway({
      configText: testConfigText(upstream.url, 'billing:\n  payment_provider: sandbox\n'),
      storeKind,
      // Slow polling: only the announcement made by the disable call can stop a cached key in time.
      deps: { keyCacheOptions: { pollIntervalMs: 60_000 } },
    });
    admin = await AccountClient.signUp(gateway.url, `admin-${randomIdGenerator.next('').toLowerCase()}@example.com`);
    adminId = await idOf(admin);
    await setRole(gateway.testStore.store.db, adminId, 'admin', Date.now());
    member = await AccountClient.signUp(gateway.url, `member-${randomIdGenerator.next('').toLowerCase()}@example.com`);
    memberId = await idOf(member);
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('answers 401 without a session and 403 admin_required to a non-admin, on every admin route', async () => {
    const document = (await requestJson(gateway.url, 'GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/api-account/admin/'))
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path })));
    // Every route registered under /admin is in the document (swagger lists what Fastify routes).
    expect(operations.length).toBeGreaterThanOrEqual(9);
    for (const { method, path } of operations) {
      const concrete = path.replace(/\{[^}]+\}/g, memberId);
      const body = method === 'GET' ? undefined : { role: 'admin', amount: 5, reason: 'x' };
      const anonymous = await requestJson(gateway.url, method, concrete, body);
      expect(anonymous.status, `${method} ${path} anonymous`).toBe(401);
      const refused = await member.request(method, concrete, body);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'admin_required' });
    }
    // Nothing happened: the member is still a plain user with no credits.
    expect((await admin.request('GET', `/api-account/admin/users/${memberId}`)).body).toMatchObject({
      role: 'user',
      disabled: false,
      balance_nanos: 0,
    });
  });

  it('lists and searches accounts with paging', async () => {
    const all = await admin.request('GET', '/api-account/admin/users?limit=1');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 3, limit: 1, offset: 0 });
    expect(all.body.data).toHaveLength(1);
    const found = await admin.request('GET', `/api-account/admin/users?search=${encodeURIComponent('MEMBER-')}`);
    expect(found.body.total).toBe(1);
    expect(found.body.data[0]).toMatchObject({ id: memberId, email: member.email, role: 'user', disabled: false });
    expect(found.body.data[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    // LIKE wildcards are taken literally.
    expect((await admin.request('GET', '/api-account/admin/users?search=%25')).body.total).toBe(0);
    const unknownParameter = await admin.request('GET', '/api-account/admin/users?sort=email');
    expect(unknownParameter.status).toBe(400);
    expect(unknownParameter.body.error.param).toBe('sort');
    const badLimit = await admin.request('GET', '/api-account/admin/users?limit=0');
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.error.param).toContain('limit');
    const missing = await admin.request('GET', '/api-account/admin/users/no-such-user');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('user_not_found');
  });

  it('grants and deducts credits with a reason as ledger entries, never below zero', async () => {
    const granted = await admin.request('POST', `/api-account/admin/users/${memberId}/credits`, {
      amount: '12.5',
      reason: 'welcome credit',
    });
    expect(granted.status).toBe(200);
    expect(granted.body).toMatchObject({
      user_id: memberId,
      kind: 'grant',
      amount: 12.5,
      amount_nanos: 12_500_000_000,
      balance_nanos: 12_500_000_000,
    });
    const deducted = await admin.request('POST', `/api-account/admin/users/${memberId}/credits`, {
      amount: -2.25,
      reason: 'goodwill credit taken back',
    });
    expect(deducted.body).toMatchObject({ kind: 'adjustment', amount_nanos: -2_250_000_000, balance: 10.25 });
    const tooMuch = await admin.request('POST', `/api-account/admin/users/${memberId}/credits`, {
      amount: -1000,
      reason: 'closing the balance',
    });
    expect(tooMuch.body).toMatchObject({ amount_nanos: -10_250_000_000, balance_nanos: 0 });
    expect(await getBalance(gateway.testStore.store, memberId)).toBe(0);
    // The member sees the grant and both deductions in their own transactions, with the reasons.
    const history = await member.request('GET', '/api-account/user/transactions');
    expect(history.status).toBe(200);
    expect(
      history.body.data.map((row: { type: string; amount_nanos: number; description: string }) => [
        row.type,
        row.amount_nanos,
        row.description,
      ]),
    ).toEqual([
      ['adjustment', -10_250_000_000, 'closing the balance'],
      ['adjustment', -2_250_000_000, 'goodwill credit taken back'],
      ['grant', 12_500_000_000, 'welcome credit'],
    ]);
    const ledger = await gateway.testStore.store.db
      .selectFrom('credit_ledger')
      .select(['kind', 'amount_nanos', 'description'])
      .where('user_id', '=', memberId)
      .orderBy('id')
      .execute();
    expect(ledger.map((row) => [row.kind, Number(row.amount_nanos), row.description])).toEqual([
      ['grant', 12_500_000_000, 'welcome credit'],
      ['adjustment', -2_250_000_000, 'goodwill credit taken back'],
      ['adjustment', -10_250_000_000, 'closing the balance'],
    ]);
    for (const body of [
      { amount: 0, reason: 'nothing' },
      { amount: '1.0000000001', reason: 'too precise' },
      { amount: 'ten', reason: 'not a number' },
    ]) {
      const refused = await admin.request('POST', `/api-account/admin/users/${memberId}/credits`, body);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_amount', param: 'amount' });
    }
    const noReason = await admin.request('POST', `/api-account/admin/users/${memberId}/credits`, { amount: 1 });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.param).toBe('reason');
    const log = await admin.request(
      'GET',
      `/api-account/admin/audit-log?target_user_id=${memberId}&action=credits.deduct`,
    );
    expect(log.body.total).toBe(2);
    expect(log.body.data[0]).toMatchObject({
      action: 'credits.deduct',
      actor_user_id: adminId,
      actor_email: admin.email,
      target_user_id: memberId,
      target_email: member.email,
      details: { amount_nanos: -10_250_000_000, requested_nanos: -1_000_000_000_000, reason: 'closing the balance' },
    });
  });

  it("disabling stops the user's keys at once and refuses sign-in; enabling allows sign-in again", async () => {
    const victim = await AccountClient.signUp(gateway.url);
    const victimId = await idOf(victim);
    const { fullKey } = await createApiKey(gateway.testStore.store, randomIdGenerator, Date.now(), {
      userId: victimId,
      name: 'soon revoked',
    });
    expect((await chat(fullKey)).status).toBe(200); // now cached by this instance
    const disabled = await admin.request('POST', `/api-account/admin/users/${victimId}/disable`, {
      reason: 'abuse report 42',
    });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ id: victimId, disabled: true, active_keys: 0 });
    const refused = await chat(fullKey);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_api_key');
    expect((await victim.request('GET', '/api-account/user/me')).status).toBe(401);
    const signIn = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
      email: victim.email,
      password: 'plum-orbit-42-lantern',
    });
    expect(signIn.status).toBe(403);

    const enabled = await admin.request('POST', `/api-account/admin/users/${victimId}/enable`);
    expect(enabled.body).toMatchObject({ disabled: false, active_keys: 0 });
    const again = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
      email: victim.email,
      password: 'plum-orbit-42-lantern',
    });
    expect(again.status).toBe(200);
    expect((await chat(fullKey)).status).toBe(401);

    const log = await admin.request('GET', `/api-account/admin/audit-log?target_user_id=${victimId}`);
    expect(log.body.data.map((entry: { action: string }) => entry.action)).toEqual(['user.enable', 'user.disable']);
    expect(log.body.data[1].details).toEqual({ reason: 'abuse report 42', revoked_keys: 1 });
  });

  it('grants and takes away the admin role, never leaving no active administrator', async () => {
    const lastAdmin = await admin.request('PUT', `/api-account/admin/users/${adminId}/role`, { role: 'user' });
    expect(lastAdmin.status).toBe(409);
    expect(lastAdmin.body.error.code).toBe('last_admin');
    expect((await admin.request('POST', `/api-account/admin/users/${adminId}/disable`)).body.error.code).toBe(
      'last_admin',
    );
    const badRole = await admin.request('PUT', `/api-account/admin/users/${memberId}/role`, { role: 'owner' });
    expect(badRole.status).toBe(400);
    expect(badRole.body.error).toMatchObject({ code: 'invalid_value', param: 'role' });
    expect(badRole.body.error.message).toContain("'admin', 'user'");

    const promoted = await admin.request('PUT', `/api-account/admin/users/${memberId}/role`, { role: 'admin' });
    expect(promoted.body.role).toBe('admin');
    expect((await member.request('GET', '/api-account/admin/users')).status).toBe(200);
    const demoted = await member.request('PUT', `/api-account/admin/users/${memberId}/role`, { role: 'user' });
    expect(demoted.body.role).toBe('user');
    // Taken away at once: the next request is refused.
    expect((await member.request('GET', '/api-account/admin/users')).status).toBe(403);
    const log = await admin.request('GET', '/api-account/admin/audit-log?action=user.set_role&limit=1');
    expect(log.body).toMatchObject({ total: 2, limit: 1, offset: 0 });
    expect(log.body.data[0]).toMatchObject({
      actor_user_id: memberId,
      details: { role: 'user', previous_role: 'admin' },
    });
  });

  it("refunds a paid order (credits taken back once) and shows any user's usage", async () => {
    const buyer = await AccountClient.signUp(gateway.url);
    const buyerId = await idOf(buyer);
    const checkout = await buyer.request('POST', '/api-account/user/billing/create-checkout', { amount: 20 });
    expect(checkout.status).toBe(200);
    const orderId = checkout.body.order_id as string;
    const notPaid = await admin.request('POST', `/api-account/admin/orders/${orderId}/refund`, {});
    expect(notPaid.status).toBe(409);
    expect(notPaid.body.error.code).toBe('order_not_refundable');
    await buyer.request('POST', `/api-account/billing/sandbox/${checkout.body.session_id}/confirm`);
    expect(await getBalance(gateway.testStore.store, buyerId)).toBe(20_000_000_000);

    const refunded = await admin.request('POST', `/api-account/admin/orders/${orderId}/refund`, {
      reason: 'customer asked',
    });
    expect(refunded.status).toBe(200);
    expect(refunded.body).toMatchObject({ order_id: orderId, status: 'refunded', credits: 20 });
    expect(await getBalance(gateway.testStore.store, buyerId)).toBe(0);
    const twice = await admin.request('POST', `/api-account/admin/orders/${orderId}/refund`, {});
    expect(twice.status).toBe(409);
    expect(await getBalance(gateway.testStore.store, buyerId)).toBe(0);
    expect((await admin.request('POST', '/api-account/admin/orders/ord_nope/refund', {})).status).toBe(404);
    // The console's refund action finds the order here: any account's orders, as the document says.
    const orders = await admin.request('GET', `/api-account/admin/users/${buyerId}/orders`);
    expect(orders.status).toBe(200);
    expect(orders.body).toMatchObject({ total: 1, limit: 20, offset: 0 });
    expect(orders.body.data[0]).toMatchObject({ order_id: orderId, status: 'refunded', credits: 20 });
    const document = (await requestJson(gateway.url, 'GET', '/openapi.json')).body;
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(document, 'doc');
    const validate = ajv.compile({
      $ref: 'doc#/paths/~1api-account~1admin~1users~1{user_id}~1orders/get/responses/200/content/application~1json/schema',
    });
    expect(validate(orders.body) ? null : ajv.errorsText(validate.errors)).toBeNull();
    expect((await admin.request('GET', '/api-account/admin/users/usr_nope/orders')).status).toBe(404);
    const log = await admin.request('GET', `/api-account/admin/audit-log?action=order.refund`);
    expect(log.body.data[0]).toMatchObject({
      target_user_id: buyerId,
      details: { order_id: orderId, credit_nanos: 20_000_000_000, reason: 'customer asked' },
    });

    const key = await createApiKey(gateway.testStore.store, randomIdGenerator, Date.now(), {
      userId: buyerId,
      name: 'usage key',
    });
    expect((await chat(key.fullKey)).status).toBe(200);
    // The usage event is written shortly after the answer: poll the report until it shows.
    let usage = await admin.request('GET', `/api-account/admin/users/${buyerId}/usage`);
    for (let attempt = 0; attempt < 50 && usage.body.totals.requests === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      usage = await admin.request('GET', `/api-account/admin/users/${buyerId}/usage`);
    }
    expect(usage.status).toBe(200);
    expect(usage.body.totals.requests).toBe(1);
    expect(usage.body.by_key[0]).toMatchObject({ key_id: key.row.id, name: 'usage key', requests: 1 });
    expect((await admin.request('GET', `/api-account/admin/users/${buyerId}/usage?start_date=nope`)).status).toBe(400);
    expect((await admin.request('GET', '/api-account/admin/users/nobody/usage')).status).toBe(404);
  });
});

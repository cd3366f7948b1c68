import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { requestJson, type JsonResponse } from '../helpers/account-client.js';
import { STORE_KINDS } from '../helpers/test-store.js';
import { getBalance } from '../../src/credits/credit-ledger.js';

/**
 * Issue 16, finding 7: with the session cookie and `Origin: https://evil.example`, create key,
 * create-checkout, sandbox confirm, PATCH and DELETE all succeeded. Every cookie-authenticated
 * write under /api-account now needs a trusted Origin (or Referer): 403 `invalid_origin`.
 */
const CONSOLE_ORIGIN = 'https://console.example.com';
const EVIL = 'https://evil.example';

describe.each(STORE_KINDS)('CSRF on the account API (%s)', (storeKind) => {
  let gateway: TestGateway;
  let cookie: string;
  let bearer: string;

  beforeAll(async () => {
    gateway = await startTestGateway({
      configText: testConfigText('http://127.0.0.1:9', 'billing:\n  payment_provider: sandbox\n').replace(
        '  body_limit_bytes: 65536\n',
        `  body_limit_bytes: 65536\n  cors_origins: [${CONSOLE_ORIGIN}]\n`,
      ),
      storeKind,
    });
    const signIn = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
      email: gateway.email,
      password: 'plum-orbit-42-lantern',
    });
    expect(signIn.status).toBe(200);
    cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
    expect(cookie).toMatch(/session_token=/);
    bearer = signIn.body.token;
  });
  afterAll(async () => gateway?.close());

  const withCookie = (
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string>,
  ): Promise<JsonResponse> => requestJson(gateway.url, method, `/api-account${path}`, body, { cookie, ...headers });

  const expectRefused = (response: JsonResponse) => {
    expect(response.status).toBe(403);
    expect(response.body.error).toMatchObject({ type: 'permission_error', code: 'invalid_origin' });
  };

  const keyCount = async () =>
    (await withCookie('GET', '/user/api-keys', undefined, { origin: EVIL })).body.data.length as number;

  it('refuses create key, create-checkout, sandbox confirm, PATCH and DELETE from a foreign origin, changing nothing', async () => {
    const before = await keyCount(); // a GET changes nothing and is not checked
    const evil = { origin: EVIL };
    expectRefused(await withCookie('POST', '/user/api-keys', { name: 'csrf' }, evil));
    expect(await keyCount()).toBe(before);

    // A real key and a real pending order to aim at, made same-origin.
    const own = { origin: gateway.url };
    const created = await withCookie('POST', '/user/api-keys', { name: 'mine' }, own);
    expect(created.status).toBe(201);
    const keyId = created.body.key_id as string;
    const checkout = await withCookie('POST', '/user/billing/create-checkout', { amount: 50 }, own);
    expect(checkout.status).toBe(200);

    expectRefused(await withCookie('POST', '/user/billing/create-checkout', { amount: 50 }, evil));
    expectRefused(await withCookie('POST', `/billing/sandbox/${checkout.body.session_id}/confirm`, undefined, evil));
    expectRefused(await withCookie('PATCH', `/user/api-keys/${keyId}`, { name: 'renamed', disabled: true }, evil));
    expectRefused(await withCookie('DELETE', `/user/api-keys/${keyId}`, undefined, evil));
    // A Referer from the foreign site is as good as its Origin; "null" (sandboxed frames) is no origin.
    expectRefused(await withCookie('DELETE', `/user/api-keys/${keyId}`, undefined, { referer: `${EVIL}/page` }));
    expectRefused(await withCookie('DELETE', `/user/api-keys/${keyId}`, undefined, { origin: 'null' }));
    // Neither header with the cookie: refused, a browser always sends one of them on a write.
    expectRefused(await withCookie('DELETE', `/user/api-keys/${keyId}`, undefined, {}));
    // better-auth's own routes too.
    expectRefused(await withCookie('POST', '/auth/sign-out', {}, evil));

    const key = await withCookie('GET', `/user/api-keys/${keyId}`, undefined, evil);
    expect(key.body).toMatchObject({ key_id: keyId, name: 'mine', disabled: false });
    const order = await withCookie('GET', `/user/billing/payment-status/${checkout.body.order_id}`, undefined, evil);
    expect(order.body.status).toBe('pending');
    expect(await getBalance(gateway.testStore.store, gateway.userId)).toBe(0);
    expect((await withCookie('GET', '/user/me', undefined, {})).status).toBe(200);
  });

  it('lets the same writes through from the gateway’s own origin, a configured console origin and a same-origin Referer', async () => {
    const created = await withCookie('POST', '/user/api-keys', { name: 'own' }, { origin: gateway.url });
    expect(created.status).toBe(201);
    const keyId = created.body.key_id as string;
    const renamed = await withCookie(
      'PATCH',
      `/user/api-keys/${keyId}`,
      { name: 'console' },
      { origin: CONSOLE_ORIGIN },
    );
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('console');

    const checkout = await withCookie(
      'POST',
      '/user/billing/create-checkout',
      { amount: 5 },
      { origin: gateway.config.server.publicUrl },
    );
    expect(checkout.status).toBe(200);
    const confirmed = await withCookie('POST', `/billing/sandbox/${checkout.body.session_id}/confirm`, undefined, {
      referer: `${gateway.url}/billing/sandbox/checkout/${checkout.body.session_id}`,
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.status).toBe('paid');

    const deleted = await withCookie('DELETE', `/user/api-keys/${keyId}`, undefined, { origin: gateway.url });
    expect(deleted.body).toEqual({ key_id: keyId, deleted: true });
  });

  it('percent-encoded paths and a junk Authorization header do not skip the Origin check (issue 25, item 4)', async () => {
    // Issue 25, item 4: the check tested the raw URL while the router decodes it, so
    // `/%61pi-account/...` with the cookie and a foreign Origin went through; any Authorization
    // header, even a junk one, skipped the check while the cookie still authenticated.
    const own = { origin: gateway.url };
    const evil = { origin: EVIL };
    const encoded = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
      requestJson(gateway.url, method, `/%61pi-account${path}`, body, { cookie, ...headers });

    const before = await keyCount();
    const balanceBefore = await getBalance(gateway.testStore.store, gateway.userId);
    expectRefused(await encoded('POST', '/user/api-keys', { name: 'csrf' }, evil));
    expectRefused(await encoded('POST', '/user/%61pi-keys', { name: 'csrf' }, evil));
    expectRefused(await withCookie('POST', '/user/api-keys', { name: 'csrf' }, { ...evil, authorization: 'junk' }));
    expectRefused(
      await withCookie('POST', '/user/api-keys', { name: 'csrf' }, { ...evil, authorization: 'Bearer not-a-token' }),
    );
    expect(await keyCount()).toBe(before);

    const created = await withCookie('POST', '/user/api-keys', { name: 'target' }, own);
    expect(created.status).toBe(201);
    const keyId = created.body.key_id as string;
    expectRefused(await encoded('POST', `/user/api-keys/${keyId}/rotate`, {}, evil));
    expectRefused(await encoded('DELETE', `/user/api-keys/${keyId}`, undefined, evil));

    const checkout = await withCookie('POST', '/user/billing/create-checkout', { amount: 50 }, own);
    expect(checkout.status).toBe(200);
    expectRefused(await encoded('POST', `/user/billing/orders/${checkout.body.order_id}/cancel`, undefined, evil));
    expectRefused(await encoded('POST', `/billing/sandbox/${checkout.body.session_id}/confirm`, undefined, evil));
    expectRefused(
      await withCookie('POST', `/billing/sandbox/${checkout.body.session_id}/confirm`, undefined, {
        ...evil,
        authorization: 'junk',
      }),
    );
    expectRefused(await encoded('DELETE', '/user/sessions', undefined, evil));
    expectRefused(await encoded('POST', '/auth/sign-out', {}, evil));

    const key = await withCookie('GET', `/user/api-keys/${keyId}`, undefined, {});
    expect(key.body).toMatchObject({ key_id: keyId, name: 'target', disabled: false });
    expect(key.body.masked_key).toBe(created.body.masked_key);
    const order = await withCookie('GET', `/user/billing/payment-status/${checkout.body.order_id}`, undefined, {});
    expect(order.body.status).toBe('pending');
    expect(await getBalance(gateway.testStore.store, gateway.userId)).toBe(balanceBefore);
    expect((await withCookie('GET', '/user/me', undefined, {})).status).toBe(200);
  });

  it('does not apply to bearer-token clients, which a foreign page cannot impersonate', async () => {
    const created = await requestJson(
      gateway.url,
      'POST',
      '/api-account/user/api-keys',
      { name: 'sdk' },
      { authorization: `Bearer ${bearer}`, origin: EVIL },
    );
    expect(created.status).toBe(201);
    const deleted = await requestJson(
      gateway.url,
      'DELETE',
      `/api-account/user/api-keys/${created.body.key_id}`,
      undefined,
      { authorization: `Bearer ${bearer}` },
    );
    expect(deleted.status).toBe(200);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { AccountClient } from '../helpers/account-client.js';
import { STORE_KINDS } from '../helpers/test-store.js';
import { setRole } from '../../src/users/user-roles.js';
import { randomIdGenerator } from '../../src/shared/ids.js';

/**
 * Issue 25, item 6: `offset=99999999999999999999` on transactions, orders and admin users was a
 * 500 (the schema took any integer, the database refused it). Every paged account route now
 * bounds limit and offset in its schema: 400 in the account envelope naming the parameter.
 */
const PAGED_ROUTES = [
  '/api-account/user/transactions',
  '/api-account/user/billing/orders',
  '/api-account/admin/users',
  '/api-account/admin/audit-log',
  '/api-account/models',
];
const LIMIT_ONLY_ROUTES = ['/api-account/admin/invitations'];

const BAD_VALUES = ['99999999999999999999', '1e20', '9007199254740993', '-1', '1.5', 'abc', ''];

describe.each(STORE_KINDS)('paging parameters are bounded (%s)', (storeKind) => {
  let gateway: TestGateway;
  let admin: AccountClient;

  beforeAll(async () => {
    gateway = await startTestGateway({
      configText: testConfigText('http://127.0.0.1:9', 'billing:\n  payment_provider: sandbox\n'),
      storeKind,
    });
    admin = await AccountClient.signUp(gateway.url, `admin-${randomIdGenerator.next('').toLowerCase()}@example.com`);
    const me = await admin.request('GET', '/api-account/user/me');
    await setRole(gateway.testStore.store.db, me.body.id, 'admin', Date.now());
  }, 60_000);
  afterAll(async () => gateway?.close());

  const expectBadParameter = (response: { status: number; body: any }, param: string, where: string) => {
    expect(response.status, `${where}: ${JSON.stringify(response.body)}`).toBe(400);
    expect(response.body.error, where).toMatchObject({ type: 'invalid_request_error', param });
  };

  it('offset=99999999999999999999 (and huge, negative, non-integer offsets) answer 400, never 500', async () => {
    for (const path of PAGED_ROUTES)
      for (const value of BAD_VALUES)
        expectBadParameter(
          await admin.request('GET', `${path}?offset=${encodeURIComponent(value)}`),
          'offset',
          `${path}?offset=${value}`,
        );
  }, 60_000);

  it('huge, negative and non-integer limits answer 400, never 500', async () => {
    for (const path of [...PAGED_ROUTES, ...LIMIT_ONLY_ROUTES])
      for (const value of [...BAD_VALUES, '0', '100000'])
        expectBadParameter(
          await admin.request('GET', `${path}?limit=${encodeURIComponent(value)}`),
          'limit',
          `${path}?limit=${value}`,
        );
  }, 60_000);

  it('the largest allowed offset answers an empty page, not an error', async () => {
    for (const path of PAGED_ROUTES) {
      const page = await admin.request('GET', `${path}?offset=1000000000&limit=5`);
      expect(page.status, `${path}: ${page.text}`).toBe(200);
      expect(page.body).toMatchObject({ data: [], limit: 5, offset: 1000000000 });
    }
    const past = await admin.request('GET', '/api-account/user/transactions?offset=1000000001');
    expectBadParameter(past, 'offset', 'just past the bound');
    expect(past.body.error.message).toMatch(/1000000000/);
  }, 60_000);
});

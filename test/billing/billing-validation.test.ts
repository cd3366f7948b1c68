import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { signUpUser, type SignedInUser } from './billing-helpers.js';

describe('billing input validation', () => {
  let gateway: TestGateway;
  let user: SignedInUser;

  beforeAll(async () => {
    gateway = await startTestGateway({
      configText: testConfigText(
        'http://127.0.0.1:9',
        'billing:\n  payment_provider: sandbox\n  min_amount: 5\n  max_amount: 500\n  currencies: { usd: 1, jpy: 0.0067 }\n',
      ),
    });
    user = await signUpUser(gateway);
  });
  afterAll(async () => gateway?.close());

  it.each([
    [{}, 'amount', 'missing_required_parameter'],
    [{ amount: '10' }, 'amount', 'invalid_type'],
    [{ amount: 0 }, 'amount', 'invalid_value'],
    [{ amount: -5 }, 'amount', 'invalid_value'],
    [{ amount: 10.001 }, 'amount', 'invalid_amount'],
    [{ amount: 4.99 }, 'amount', 'amount_out_of_range'],
    [{ amount: 500.01 }, 'amount', 'amount_out_of_range'],
    [{ amount: 1e300 }, 'amount', 'amount_out_of_range'],
    [{ amount: 100.5, currency: 'jpy' }, 'amount', 'invalid_amount'],
    [{ amount: 10, currency: 'gbp' }, 'currency', 'invalid_currency'],
    [{ amount: 10, currency: 'dollars' }, 'currency', 'invalid_value'],
    [{ amount: 10, currency: 5 }, 'currency', 'invalid_type'],
    [{ amount: 10, success_url: 'ftp://example.com/x' }, 'success_url', 'invalid_value'],
    [{ amount: 10, cancel_url: '/relative' }, 'cancel_url', 'invalid_value'],
    [{ amount: 10, coupon: 'FREE' }, 'coupon', undefined],
  ])('create-checkout %j → 400 naming %s', async (body, param, code) => {
    const response = await user.call('POST', '/api-account/user/billing/create-checkout', body);
    expect(response.status).toBe(400);
    expect(response.json.error.type).toBe('invalid_request_error');
    expect(response.json.error.param).toBe(param);
    if (code) expect(response.json.error.code).toBe(code);
  });

  it('refuses a body that is not JSON', async () => {
    const response = await fetch(`${gateway.url}/api-account/user/billing/create-checkout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
      body: '{"amount": 10',
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error.type).toBe('invalid_request_error');
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=1.5', 'offset'],
  ])('orders?%s → 400 naming %s', async (query, param) => {
    const response = await user.call('GET', `/api-account/user/billing/orders?${query}`);
    expect(response.status).toBe(400);
    expect(response.json.error.param).toBe(param);
  });

  it.each([
    [{}, 'order_id'],
    [{ order_id: 'ord_x', type: 'bill' }, 'type'],
    [{ order_id: 42 }, 'order_id'],
  ])('document %j → 400 naming %s', async (body, param) => {
    const response = await user.call('POST', '/api-account/user/billing/document', body);
    expect(response.status).toBe(400);
    expect(response.json.error.param).toBe(param);
  });

  it('unknown orders are 404 in the envelope', async () => {
    const status = await user.call('GET', '/api-account/user/billing/payment-status/ord_nope');
    expect(status.status).toBe(404);
    expect(status.json.error).toMatchObject({ code: 'order_not_found', param: 'order_id' });
    expect((await user.call('POST', '/api-account/user/billing/document', { order_id: 'ord_nope' })).status).toBe(404);
  });

  it('every billing endpoint needs a signed-in user', async () => {
    for (const [method, path] of [
      ['GET', '/api-account/user/billing'],
      ['POST', '/api-account/user/billing/create-checkout'],
      ['GET', '/api-account/user/billing/payment-status/ord_x'],
      ['GET', '/api-account/user/billing/orders'],
      ['POST', '/api-account/user/billing/document'],
      ['POST', '/api-account/billing/sandbox/sbx_x/confirm'],
    ]) {
      const response = await fetch(`${gateway.url}${path}`, {
        method,
        headers: { authorization: 'Bearer not-a-session', 'content-type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      });
      expect(response.status, path).toBe(401);
      expect((await response.json()).error.type).toBe('authentication_error');
    }
  });

  it('a document link for a missing document, or without a signature, is refused', async () => {
    expect((await fetch(`${gateway.url}/api-account/billing/documents/doc_x.pdf`)).status).toBe(403);
    expect(
      (await fetch(`${gateway.url}/api-account/billing/documents/doc_x.pdf?expires=99999999999&signature=abc`)).status,
    ).toBe(403);
  });

  it('an unknown sandbox checkout page is a friendly 404', async () => {
    const page = await fetch(`${gateway.url}/billing/sandbox/checkout/sbx_nope`);
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('not valid');
  });
});

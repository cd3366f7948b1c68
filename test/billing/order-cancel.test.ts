import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { STORE_KINDS } from '../helpers/test-store.js';
import { getBalance } from '../../src/credits/credit-ledger.js';
import { signUpUser, type SignedInUser } from './billing-helpers.js';

/** Issue 17, item 5: the owner cancels a pending order (sandbox payments; Stripe in stripe-checkout.test.ts). */
describe.each(STORE_KINDS)('cancel a pending order (%s)', (storeKind) => {
  let gateway: TestGateway;
  let buyer: SignedInUser;
  let stranger: SignedInUser;

  const checkout = async (amount: number) => {
    const response = await buyer.call('POST', '/api-account/user/billing/create-checkout', { amount });
    expect(response.status).toBe(200);
    return response.json as { order_id: string; session_id: string };
  };
  const cancel = (user: SignedInUser, orderId: string) =>
    user.call('POST', `/api-account/user/billing/orders/${orderId}/cancel`);

  beforeAll(async () => {
    gateway = await startTestGateway({
      configText: testConfigText('http://127.0.0.1:9', 'billing:\n  payment_provider: sandbox\n'),
      storeKind,
    });
    buyer = await signUpUser(gateway);
    stranger = await signUpUser(gateway);
  });
  afterAll(async () => gateway?.close());

  it('moves a pending order to canceled; confirming it afterwards credits nothing', async () => {
    const order = await checkout(15);
    const canceled = await cancel(buyer, order.order_id);
    expect(canceled.status).toBe(200);
    expect(canceled.json).toMatchObject({ order_id: order.order_id, status: 'canceled', checkout_url: null });
    expect(canceled.json.closed_at).toEqual(expect.any(String));
    const confirm = await buyer.call('POST', `/api-account/billing/sandbox/${order.session_id}/confirm`);
    expect(confirm.status).toBe(200);
    expect(confirm.json.status).toBe('canceled');
    expect(await getBalance(gateway.testStore.store, buyer.id)).toBe(0);
    const listed = await buyer.call('GET', '/api-account/user/billing/orders');
    expect(listed.json.data.find((row: { order_id: string }) => row.order_id === order.order_id).status).toBe(
      'canceled',
    );
  });

  it('refuses an order that is not pending (409), another user’s order (404) and an anonymous caller (401)', async () => {
    const paid = await checkout(5);
    expect((await buyer.call('POST', `/api-account/billing/sandbox/${paid.session_id}/confirm`)).status).toBe(200);
    const notPending = await cancel(buyer, paid.order_id);
    expect(notPending.status).toBe(409);
    expect(notPending.json.error).toMatchObject({ code: 'order_not_pending', type: 'conflict_error' });
    expect(notPending.json.error.message).toContain('paid');

    const pending = await checkout(6);
    const foreign = await cancel(stranger, pending.order_id);
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.code).toBe('order_not_found');
    const anonymous = await fetch(`${gateway.url}/api-account/user/billing/orders/${pending.order_id}/cancel`, {
      method: 'POST',
    });
    expect(anonymous.status).toBe(401);
    expect((await buyer.call('GET', `/api-account/user/billing/payment-status/${pending.order_id}`)).json.status).toBe(
      'pending',
    );
  });
});

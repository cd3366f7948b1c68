import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { getBalance } from '../../src/credits/credit-ledger.js';
import { FakeStripe } from './fake-stripe.js';
import { signUpUser, type SignedInUser } from './billing-helpers.js';
import { setRole } from '../../src/users/user-roles.js';

const USD = 1_000_000_000;

describe('Stripe checkout against a fake Stripe API (PostgreSQL)', () => {
  let stripe: FakeStripe;
  let gateway: TestGateway;
  let buyer: SignedInUser;

  const deliver = (delivery: { payload: string; signature: string }) =>
    fetch(`${gateway.url}/api-account/billing/webhooks/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': delivery.signature },
      body: delivery.payload,
    });
  const balance = () => getBalance(gateway.testStore.store, buyer.id);
  const status = async (orderId: string) =>
    (await buyer.call('GET', `/api-account/user/billing/payment-status/${orderId}`)).json.status as string;
  const checkout = async (amount: number) => {
    const response = await buyer.call('POST', '/api-account/user/billing/create-checkout', {
      amount,
      currency: 'usd',
      success_url: 'https://app.example.com/thanks',
      cancel_url: 'https://app.example.com/cancel',
    });
    expect(response.status).toBe(200);
    return response.json as { order_id: string; session_id: string; checkout_url: string };
  };

  beforeAll(async () => {
    stripe = new FakeStripe();
    await stripe.start();
    gateway = await startTestGateway({
      configText: testConfigText('http://127.0.0.1:9', 'billing:\n  platform_fee_rate: 0.03\n'),
      storeKind: 'postgres',
      deps: { stripe: stripe.settings() },
    });
    buyer = await signUpUser(gateway);
  });
  afterAll(async () => {
    await gateway?.close();
    await stripe?.stop();
  });

  it('creates a Checkout Session for the order total, with the order id and an idempotency key', async () => {
    const order = await checkout(100);
    expect(order.session_id).toMatch(/^cs_test_/);
    expect(order.checkout_url).toBe(`https://checkout.stripe.test/c/pay/${order.session_id}`);
    const session = stripe.session(order.session_id);
    expect(session).toMatchObject({
      mode: 'payment',
      amount_total: 10300,
      currency: 'usd',
      client_reference_id: order.order_id,
      success_url: 'https://app.example.com/thanks',
    });
    expect(session.metadata.order_id).toBe(order.order_id);
    const create = stripe.requests.find(
      (request) => request.path === '/v1/checkout/sessions' && request.method === 'POST',
    );
    expect(create?.idempotencyKey).toBe(`checkout-${order.order_id}`);
    expect(stripe.customers.size).toBe(1);
    await checkout(50);
    expect(stripe.customers.size).toBe(1);
  });

  it('a bad signature is 400 and changes nothing', async () => {
    const order = await checkout(20);
    const session = stripe.complete(order.session_id);
    const good = stripe.event('checkout.session.completed', session);
    const forged = await deliver({
      payload: good.payload,
      signature: good.signature.replace(/v1=[0-9a-f]{4}/, 'v1=0000'),
    });
    expect(forged.status).toBe(400);
    expect((await forged.json()).error.code).toBe('invalid_signature');
    const tampered = await deliver({
      payload: good.payload.replace('"amount_total":2060', '"amount_total":1'),
      signature: good.signature,
    });
    expect(tampered.status).toBe(400);
    const unsigned = await fetch(`${gateway.url}/api-account/billing/webhooks/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: good.payload,
    });
    expect(unsigned.status).toBe(400);
    expect(await balance()).toBe(0);
    // Read the row, not the API: reading the status through the API would reconcile with Stripe.
    const row = await gateway.testStore.store.db
      .selectFrom('billing_orders')
      .select('status')
      .where('id', '=', order.order_id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('pending');
    // The genuine delivery then pays it.
    expect((await deliver(good)).status).toBe(200);
    expect(await balance()).toBe(20 * USD);
  });

  it('replays and races of the payment events credit exactly once', async () => {
    const start = await balance();
    const order = await checkout(40);
    const session = stripe.complete(order.session_id);
    const completed = stripe.event('checkout.session.completed', session);
    for (let replay = 0; replay < 5; replay++) expect((await deliver(completed)).status).toBe(200);
    // Two different events for the same payment, raced, plus the user polling the status.
    const [first, second] = await Promise.all([
      deliver(stripe.event('checkout.session.completed', session)),
      deliver(stripe.event('checkout.session.async_payment_succeeded', session)),
      status(order.order_id),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(await balance()).toBe(start + 40 * USD);
    expect(await status(order.order_id)).toBe('paid');
  });

  it('a pending order is reconciled with Stripe when its status is read', async () => {
    const start = await balance();
    const order = await checkout(15);
    expect(await status(order.order_id)).toBe('pending');
    stripe.complete(order.session_id);
    expect(await status(order.order_id)).toBe('paid');
    expect(await balance()).toBe(start + 15 * USD);
    // The webhook arriving late is a no-op.
    await deliver(stripe.event('checkout.session.completed', stripe.session(order.session_id)));
    expect(await balance()).toBe(start + 15 * USD);
  });

  it('a delayed payment waits, then fails; an abandoned session expires', async () => {
    const start = await balance();
    const delayed = await checkout(10);
    const unpaid = stripe.complete(delayed.session_id, 'unpaid');
    await deliver(stripe.event('checkout.session.completed', unpaid));
    expect(await status(delayed.order_id)).toBe('pending');
    await deliver(stripe.event('checkout.session.async_payment_failed', unpaid));
    expect(await status(delayed.order_id)).toBe('failed');
    // A success after the failure cannot resurrect it.
    await deliver(stripe.event('checkout.session.async_payment_succeeded', { ...unpaid, payment_status: 'paid' }));
    expect(await status(delayed.order_id)).toBe('failed');

    const abandoned = await checkout(10);
    await deliver(stripe.event('checkout.session.expired', stripe.expire(abandoned.session_id)));
    expect(await status(abandoned.order_id)).toBe('expired');
    expect(await balance()).toBe(start);
  });

  it('a refund moves the order to refunded and takes the credits back once', async () => {
    const start = await balance();
    const order = await checkout(30);
    const session = stripe.complete(order.session_id);
    await deliver(stripe.event('checkout.session.completed', session));
    expect(await balance()).toBe(start + 30 * USD);
    const refund = stripe.event('charge.refunded', stripe.charge(session));
    await deliver(refund);
    await deliver(stripe.event('charge.refunded', stripe.charge(session)));
    expect(await status(order.order_id)).toBe('refunded');
    expect(await balance()).toBe(start);
    const kinds = await gateway.testStore.store.db
      .selectFrom('credit_ledger')
      .select(['kind', 'amount_nanos', 'reference'])
      .where('reference', 'like', `order:${order.order_id}%`)
      .orderBy('id')
      .execute();
    expect(kinds.map((entry) => [entry.kind, Number(entry.amount_nanos)])).toEqual([
      ['purchase', 30 * USD],
      ['refund', -30 * USD],
    ]);
  });

  it("an administrator's refund refunds the payment at Stripe, then Stripe's own event changes nothing", async () => {
    const admin = await signUpUser(gateway);
    await setRole(gateway.testStore.store.db, admin.id, 'admin', Date.now());
    const start = await balance();
    const order = await checkout(40);
    const session = stripe.complete(order.session_id);
    await deliver(stripe.event('checkout.session.completed', session));
    expect(await balance()).toBe(start + 40 * USD);
    const refunded = await admin.call('POST', `/api-account/admin/orders/${order.order_id}/refund`, {
      reason: 'duplicate purchase',
    });
    expect(refunded.status).toBe(200);
    expect(refunded.json.status).toBe('refunded');
    const calls = stripe.requests.filter((request) => request.path === '/v1/refunds');
    expect(calls).toHaveLength(1);
    expect(calls[0].body.payment_intent).toBe(stripe.session(order.session_id).payment_intent);
    expect(calls[0].idempotencyKey).toBe(`refund-${order.order_id}`);
    expect(await balance()).toBe(start);
    await deliver(stripe.event('charge.refunded', stripe.charge(stripe.session(order.session_id))));
    expect(await status(order.order_id)).toBe('refunded');
    expect(await balance()).toBe(start);
  });

  it('a refund that overtakes the payment event still credits once and refunds once', async () => {
    const start = await balance();
    const order = await checkout(12);
    const session = stripe.complete(order.session_id);
    await deliver(stripe.event('charge.refunded', stripe.charge(session)));
    expect(await status(order.order_id)).toBe('refunded');
    await deliver(stripe.event('checkout.session.completed', session));
    expect(await status(order.order_id)).toBe('refunded');
    expect(await balance()).toBe(start);
  });

  it('a partial refund leaves the order paid', async () => {
    const start = await balance();
    const order = await checkout(8);
    const session = stripe.complete(order.session_id);
    await deliver(stripe.event('checkout.session.completed', session));
    await deliver(stripe.event('charge.refunded', stripe.charge(session, false)));
    expect(await status(order.order_id)).toBe('paid');
    expect(await balance()).toBe(start + 8 * USD);
  });

  it('shows the saved cards of the Stripe customer on the billing summary', async () => {
    const [customer] = stripe.customers.values();
    customer.payment_methods.push({
      id: 'pm_1',
      object: 'payment_method',
      type: 'card',
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
    });
    const summary = await buyer.call('GET', '/api-account/user/billing');
    expect(summary.json.payment_provider).toBe('stripe');
    expect(summary.json.platform_fee_rate).toBe(0.03);
    expect(summary.json.payment_methods).toEqual([
      { id: 'pm_1', type: 'card', brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
    ]);
    expect(summary.json.credit_balance).toBe((await balance()) / USD);
  });

  it('an event for a session that is not ours is acknowledged and ignored', async () => {
    const start = await balance();
    const foreign = {
      id: 'cs_test_foreign',
      object: 'checkout.session',
      status: 'complete',
      payment_status: 'paid',
      amount_total: 100,
      currency: 'usd',
      metadata: {},
      payment_intent: 'pi_x',
    };
    expect((await deliver(stripe.event('checkout.session.completed', foreign))).status).toBe(200);
    expect(await balance()).toBe(start);
  });

  describe('the owner cancels a pending order', () => {
    const cancel = (orderId: string) => buyer.call('POST', `/api-account/user/billing/orders/${orderId}/cancel`);

    it('expires its Checkout Session at Stripe, so it can no longer be paid', async () => {
      const order = await checkout(20);
      const canceled = await cancel(order.order_id);
      expect(canceled.status).toBe(200);
      expect(canceled.json).toMatchObject({ order_id: order.order_id, status: 'canceled', checkout_url: null });
      expect(stripe.session(order.session_id).status).toBe('expired');
      expect(
        stripe.requests.some(
          (request) => request.method === 'POST' && request.path === `/v1/checkout/sessions/${order.session_id}/expire`,
        ),
      ).toBe(true);
      expect(await status(order.order_id)).toBe('canceled');
      const again = await cancel(order.order_id);
      expect(again.status).toBe(409);
      expect(again.json.error.code).toBe('order_not_pending');
    });

    it('a session paid before the cancel arrived is applied, credited once, and the cancel refused', async () => {
      const start = await balance();
      const order = await checkout(30);
      stripe.complete(order.session_id);
      const refused = await cancel(order.order_id);
      expect(refused.status).toBe(409);
      expect(refused.json.error.code).toBe('order_not_pending');
      expect(refused.json.error.message).toContain('paid');
      expect(await status(order.order_id)).toBe('paid');
      expect((await balance()) - start).toBe(30 * USD);
    });

    it('with Stripe unreachable the order stays pending (503), and a retry succeeds', async () => {
      const order = await checkout(40);
      stripe.outage = true;
      try {
        const unavailable = await cancel(order.order_id);
        expect(unavailable.status).toBe(503);
        expect(unavailable.json.error).toMatchObject({
          code: 'payment_provider_unavailable',
          type: 'service_unavailable',
        });
        expect(unavailable.headers.get('retry-after')).toBe('10');
      } finally {
        stripe.outage = false;
      }
      expect(await status(order.order_id)).toBe('pending');
      expect((await cancel(order.order_id)).json.status).toBe('canceled');
    });
  });
});

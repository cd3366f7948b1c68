import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { pdfText } from '../helpers/pdf-text.js';
import { getBalance } from '../../src/credits/credit-ledger.js';
import { signUpUser, type SignedInUser } from './billing-helpers.js';

const BILLING = `
billing:
  payment_provider: sandbox
  platform_fee_rate: 0.05
  currencies: { usd: 1, eur: 1.1 }
  seller: { name: Gateway Test Ltd, address: [1 Test Street, Testville], email: billing@gateway.test, tax_id: GB123 }
`;

describe('sandbox checkout, end to end', () => {
  let gateway: TestGateway;
  let buyer: SignedInUser;
  let stranger: SignedInUser;

  beforeAll(async () => {
    gateway = await startTestGateway({ configText: testConfigText('http://127.0.0.1:9', BILLING) });
    buyer = await signUpUser(gateway, 'Zofia Łódź');
    stranger = await signUpUser(gateway);
  });
  afterAll(async () => gateway?.close());

  it('adds credits: checkout → sandbox page → confirm → paid order, balance up, invoice and receipt', async () => {
    const checkout = await buyer.call('POST', '/api-account/user/billing/create-checkout', {
      amount: 25,
      currency: 'usd',
    });
    expect(checkout.status).toBe(200);
    expect(checkout.json).toMatchObject({ status: 'pending', amount: 25, fee: 1.25, total: 26.25, currency: 'USD' });
    expect(checkout.json.order_id).toMatch(/^ord_/);
    expect(checkout.json.session_id).toMatch(/^sbx_/);
    const checkoutUrl = new URL(checkout.json.checkout_url);
    expect(`${checkoutUrl.origin}${checkoutUrl.pathname}`).toBe(
      `${gateway.config.server.publicUrl}/billing/sandbox/checkout/${checkout.json.session_id}`,
    );
    // The return addresses travel on the link (the gateway's own pages by default).
    expect(checkoutUrl.searchParams.get('success_url')).toBe(
      `${gateway.config.server.publicUrl}/billing/complete?order_id=${checkout.json.order_id}`,
    );

    const page = await fetch(`${gateway.url}/billing/sandbox/checkout/${checkout.json.session_id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('26.25 USD');
    // The page's static script posts to /api-account/billing/sandbox/<session id>/<action>.
    expect(html).toContain(`"sessionId":${JSON.stringify(checkout.json.session_id)}`);
    expect(html).toContain("fetch('/api-account/billing/sandbox/' + encodeURIComponent(checkout.sessionId)");
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self' 'sha256-/);

    const orderId = checkout.json.order_id as string;
    expect((await buyer.call('GET', `/api-account/user/billing/payment-status/${orderId}`)).json.status).toBe(
      'pending',
    );
    const pendingDocument = await buyer.call('POST', '/api-account/user/billing/document', {
      order_id: orderId,
      type: 'invoice',
    });
    expect(pendingDocument.status).toBe(409);
    expect(pendingDocument.json.error.code).toBe('order_not_paid');

    // The stranger cannot pay, see or document the buyer's order.
    expect(
      (await stranger.call('POST', `/api-account/billing/sandbox/${checkout.json.session_id}/confirm`)).status,
    ).toBe(404);
    expect((await stranger.call('GET', `/api-account/user/billing/payment-status/${orderId}`)).status).toBe(404);
    expect((await stranger.call('POST', '/api-account/user/billing/document', { order_id: orderId })).status).toBe(404);

    // Five confirmations at once (double clicks, two tabs): one credit.
    const confirmations = await Promise.all(
      Array.from({ length: 5 }, () =>
        buyer.call('POST', `/api-account/billing/sandbox/${checkout.json.session_id}/confirm`),
      ),
    );
    for (const confirmation of confirmations) expect(confirmation.json.status).toBe('paid');
    expect(await getBalance(gateway.testStore.store, buyer.id)).toBe(25_000_000_000);
    const balance = await buyer.call('GET', '/api-account/user/balance');
    expect(balance.json).toMatchObject({ currency: 'USD', balance: 25, available: 25 });

    const status = await buyer.call('GET', `/api-account/user/billing/payment-status/${orderId}`);
    expect(status.json).toMatchObject({
      order_id: orderId,
      status: 'paid',
      amount: 25,
      fee: 1.25,
      total: 26.25,
      credits: 25,
      currency: 'USD',
      checkout_url: null,
    });
    expect(Date.parse(status.json.paid_at)).toBeGreaterThanOrEqual(Date.parse(status.json.created_at));

    const summary = await buyer.call('GET', '/api-account/user/billing');
    expect(summary.json).toMatchObject({
      plan: 'pay-as-you-go',
      credit_balance: 25,
      platform_fee_rate: 0.05,
      payment_provider: 'sandbox',
      payment_methods: [],
    });
    expect(summary.json.invoices.map((invoice: { order_id: string }) => invoice.order_id)).toEqual([orderId]);

    for (const type of ['invoice', 'receipt'] as const) {
      const link = await buyer.call('POST', '/api-account/user/billing/document', { order_id: orderId, type });
      expect(link.status).toBe(200);
      expect(link.json.document_number).toBe(type === 'invoice' ? 'INV-000001' : 'RCT-000001');
      expect(Date.parse(link.json.expires_at) - Date.now()).toBeGreaterThan(3500_000);
      const download = await fetch(link.json.url.replace(gateway.config.server.publicUrl, gateway.url));
      expect(download.status).toBe(200);
      expect(download.headers.get('content-type')).toBe('application/pdf');
      const text = await pdfText(new Uint8Array(await download.arrayBuffer()));
      for (const expected of [
        link.json.document_number,
        'Gateway Test Ltd',
        'Zofia Łódź',
        buyer.email,
        '25.00 USD',
        '1.25 USD',
        '26.25 USD',
        orderId,
      ])
        expect(text).toContain(expected);

      const tampered = new URL(link.json.url.replace(gateway.config.server.publicUrl, gateway.url));
      tampered.searchParams.set('expires', String(Number(tampered.searchParams.get('expires')) + 60));
      const refused = await fetch(tampered);
      expect(refused.status).toBe(403);
      expect((await refused.json()).error.code).toBe('invalid_signature');
    }
    // Asking again gives the same document number, not a new one.
    expect(
      (await buyer.call('POST', '/api-account/user/billing/document', { order_id: orderId })).json.document_number,
    ).toBe('RCT-000001');
  });

  it('a canceled checkout never credits, even if confirmed afterwards', async () => {
    const before = await getBalance(gateway.testStore.store, buyer.id);
    const checkout = await buyer.call('POST', '/api-account/user/billing/create-checkout', {
      amount: 10,
      currency: 'EUR',
    });
    expect(checkout.json).toMatchObject({ amount: 10, fee: 0.5, total: 10.5, currency: 'EUR' });
    const canceled = await buyer.call('POST', `/api-account/billing/sandbox/${checkout.json.session_id}/cancel`);
    expect(canceled.json.status).toBe('canceled');
    await buyer.call('POST', `/api-account/billing/sandbox/${checkout.json.session_id}/confirm`);
    expect(
      (await buyer.call('GET', `/api-account/user/billing/payment-status/${checkout.json.order_id}`)).json.status,
    ).toBe('canceled');
    expect(await getBalance(gateway.testStore.store, buyer.id)).toBe(before);
    const page = await (await fetch(`${gateway.url}/billing/sandbox/checkout/${checkout.json.session_id}`)).text();
    expect(page).toContain('canceled');
    expect(page).not.toContain('data-action="confirm"');
  });

  it('sends the buyer back to a return address on this gateway after paying, never to another site', async () => {
    const own = `${gateway.url}/credits/result`;
    const traveller = await signUpUser(gateway);
    const checkout = await traveller.call('POST', '/api-account/user/billing/create-checkout', {
      amount: 10,
      success_url: own,
      cancel_url: 'https://elsewhere.example/phish',
    });
    const html = await (
      await fetch(checkout.json.checkout_url.replace(gateway.config.server.publicUrl, gateway.url))
    ).text();
    expect(html).toContain(`"returnTo":{"confirm":${JSON.stringify(own)},"cancel":null}`);
    expect(html).not.toContain('elsewhere.example');
    expect(html).toContain(
      `/sign-in?next=${encodeURIComponent(`/billing/sandbox/checkout/${checkout.json.session_id}`)}`,
    );
  });

  it('a paid EUR order credits at the configured rate', async () => {
    const before = await getBalance(gateway.testStore.store, stranger.id);
    const checkout = await stranger.call('POST', '/api-account/user/billing/create-checkout', {
      amount: 20.5,
      currency: 'eur',
    });
    await stranger.call('POST', `/api-account/billing/sandbox/${checkout.json.session_id}/confirm`);
    expect(await getBalance(gateway.testStore.store, stranger.id)).toBe(before + 22_550_000_000);
  });

  it('lists orders newest first with paging', async () => {
    const orders = await buyer.call('GET', '/api-account/user/billing/orders?limit=1&offset=0');
    expect(orders.status).toBe(200);
    expect(orders.json).toMatchObject({ total: 2, limit: 1, offset: 0 });
    expect(orders.json.data).toHaveLength(1);
    expect(orders.json.data[0].status).toBe('canceled');
    const second = await buyer.call('GET', '/api-account/user/billing/orders?limit=1&offset=1');
    expect(second.json.data[0].status).toBe('paid');
    const defaults = await buyer.call('GET', '/api-account/user/billing/orders');
    expect(defaults.json).toMatchObject({ total: 2, limit: 20, offset: 0 });
    expect(
      (await stranger.call('GET', '/api-account/user/billing/orders')).json.data.every(
        (order: { currency: string }) => order.currency === 'EUR',
      ),
    ).toBe(true);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { createTestStore, STORE_KINDS } from '../helpers/test-store.js';
import { signUpUser } from './billing-helpers.js';
import { getBalance } from '../../src/credits/credit-ledger.js';

/**
 * Issue 16, finding 2: without STRIPE_SECRET_KEY the sandbox payment provider was live, so any
 * visitor could sign up and confirm their own checkout ($30,000 in three calls). The sandbox is
 * now an explicit, loudly logged opt-in, refused under NODE_ENV=production unless forced; with
 * no provider, create-checkout answers 503 `payments_not_configured`.
 */
describe.each(STORE_KINDS)('free credits by default (%s)', (storeKind) => {
  let gateway: TestGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  it('has no payment provider unless one is configured: create-checkout is 503 and no order is written', async () => {
    gateway = await startTestGateway({ configText: testConfigText('http://127.0.0.1:9'), storeKind });
    const buyer = await signUpUser(gateway);
    const checkout = await buyer.call('POST', '/api-account/user/billing/create-checkout', { amount: 10_000 });
    expect(checkout.status).toBe(503);
    expect(checkout.json.error).toMatchObject({ type: 'service_unavailable', code: 'payments_not_configured' });
    const orders = await buyer.call('GET', '/api-account/user/billing/orders');
    expect(orders.json.total).toBe(0);
    // The sandbox's pay button is not there to press.
    const confirm = await buyer.call('POST', '/api-account/billing/sandbox/sbx_anything/confirm');
    expect(confirm.status).toBe(404);
    expect((await buyer.call('GET', '/api-account/user/billing')).json.payment_provider).toBe('none');
    expect(await getBalance(gateway.testStore.store, buyer.id)).toBe(0);
    expect(gateway.logs.join('')).not.toContain('SANDBOX PAYMENTS ARE ON');
  });

  it('runs the sandbox when billing.payment_provider says so, with a loud warning at start-up', async () => {
    gateway = await startTestGateway({
      configText: testConfigText('http://127.0.0.1:9', 'billing:\n  payment_provider: sandbox\n'),
      storeKind,
    });
    const warning = gateway.logs.find((line) => line.includes('SANDBOX PAYMENTS ARE ON'));
    expect(warning).toBeDefined();
    expect(JSON.parse(warning!).level).toBe(40); // pino's warn
    const buyer = await signUpUser(gateway);
    const checkout = await buyer.call('POST', '/api-account/user/billing/create-checkout', { amount: 25 });
    expect(checkout.status).toBe(200);
    const confirm = await buyer.call('POST', `/api-account/billing/sandbox/${checkout.json.session_id}/confirm`);
    expect(confirm.json.status).toBe('paid');
    expect(await getBalance(gateway.testStore.store, buyer.id)).toBe(25_000_000_000);
  });

  it('refuses the sandbox under NODE_ENV=production unless billing.allow_sandbox_in_production forces it', async () => {
    const testStore = await createTestStore(storeKind);
    try {
      await expect(
        startTestGateway({
          configText: testConfigText('http://127.0.0.1:9', 'billing:\n  payment_provider: sandbox\n'),
          testStore,
          deps: { production: true },
        }),
      ).rejects.toThrow(/billing\.payment_provider.*NODE_ENV=production.*allow_sandbox_in_production/s);
      gateway = await startTestGateway({
        configText: testConfigText(
          'http://127.0.0.1:9',
          'billing:\n  payment_provider: sandbox\n  allow_sandbox_in_production: true\n',
        ),
        testStore,
        deps: { production: true },
      });
      expect(gateway.gateway.accounts.paymentProvider).toBe('sandbox');
      expect(gateway.logs.join('')).toContain('SANDBOX PAYMENTS ARE ON');
    } finally {
      await gateway?.close();
      gateway = undefined;
      await testStore.cleanup();
    }
  });

  it('refuses billing.payment_provider: stripe without STRIPE_SECRET_KEY instead of falling back', async () => {
    const testStore = await createTestStore(storeKind);
    try {
      await expect(
        startTestGateway({
          configText: testConfigText('http://127.0.0.1:9', 'billing:\n  payment_provider: stripe\n'),
          testStore,
        }),
      ).rejects.toThrow(/billing\.payment_provider is stripe, but STRIPE_SECRET_KEY is not set/);
    } finally {
      await testStore.cleanup();
    }
  });
});

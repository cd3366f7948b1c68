import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { AccountClient } from '../helpers/account-client.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { STORE_KINDS } from '../helpers/test-store.js';
import { applyLedgerEntry } from '../../src/credits/credit-ledger.js';
import { checkBalanceAlerts, startBalanceAlerts } from '../../src/credits/balance-alerts.js';
import { verifyWebhook } from '../../src/credits/alert-webhook.js';
import { systemClock } from '../../src/shared/clock.js';
import { randomIdGenerator } from '../../src/shared/ids.js';

/** Issue 27, item 5: a balance threshold; crossing it mails once and calls a signed webhook, with retries. */
const USD = 1_000_000_000;

describe.each(STORE_KINDS)('balance alerts (%s)', (storeKind) => {
  let gateway: TestGateway;
  let owner: AccountClient;
  let other: AccountClient;
  let receiver: WebhookReceiver;
  let hookUrl: string;
  let secret: string;
  const mails: Array<{ to: string; subject: string; text: string }> = [];
  const hooks: Array<{ body: string; signature: string }> = [];
  // The receiver answers these statuses in turn, then 200.
  const replies: number[] = [];
  let ledgerReference = 0;

  const move = (amount: number) =>
    applyLedgerEntry(gateway.testStore.store, {
      userId: gateway.userId,
      kind: 'adjustment',
      amount,
      reference: `test:${ledgerReference++}`,
    });
  const check = () =>
    checkBalanceAlerts({
      store: gateway.testStore.store,
      clock: systemClock,
      ids: randomIdGenerator,
      mailer: { send: async (mail) => void mails.push(mail) },
      sleep: async () => {},
    });

  beforeAll(async () => {
    receiver = await startWebhookReceiver(hooks, replies);
    hookUrl = receiver.url;
    gateway = await startTestGateway({
      configText: testConfigText('http://127.0.0.1:9'),
      storeKind,
      // The app's own timer stays out of the way: the test runs each check itself.
      deps: { balanceAlerts: { intervalMs: 3_600_000, allowHttpWebhooks: true } },
    });
    owner = await AccountClient.signIn(gateway.url, gateway.email);
    other = await AccountClient.signUp(gateway.url);
  });
  afterAll(async () => {
    await gateway?.close();
    await receiver?.close();
  });

  it('sets a threshold with a webhook: the secret is shown once', async () => {
    expect((await owner.request('GET', '/api-account/user/alerts/balance')).body).toMatchObject({ configured: false });
    const set = await owner.request('PUT', '/api-account/user/alerts/balance', { threshold: 5, webhook_url: hookUrl });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      configured: true,
      threshold: 5,
      threshold_nanos: 5 * USD,
      email: true,
      armed: true,
    });
    expect(set.body.webhook_secret).toMatch(/^whsec_/);
    secret = set.body.webhook_secret;
    const read = await owner.request('GET', '/api-account/user/alerts/balance');
    expect(read.body).toMatchObject({ configured: true, webhook_url: hookUrl });
    expect(read.body.webhook_secret).toBeUndefined();
    // Changing the threshold keeps the secret (it is not shown again).
    const again = await owner.request('PUT', '/api-account/user/alerts/balance', {
      threshold: 5,
      webhook_url: hookUrl,
    });
    expect(again.body.webhook_secret).toBeUndefined();
  });

  it('fires once when the balance falls under it: one mail, one signed webhook retried past a 500', async () => {
    await move(10 * USD);
    expect(await check()).toBe(0);
    replies.push(500);
    await move(-6 * USD);
    expect(await check()).toBe(1);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ to: gateway.email });
    expect(mails[0].text).toContain('4 USD');
    expect(hooks).toHaveLength(2);
    const now = Math.floor(Date.now() / 1000);
    for (const hook of hooks) expect(verifyWebhook(secret, hook.body, hook.signature, now)).toBe(true);
    expect(JSON.parse(hooks[1].body)).toMatchObject({
      type: 'balance.below_threshold',
      data: { balance_nanos: 4 * USD, threshold_nanos: 5 * USD, currency: 'USD' },
    });
    // Still under: nothing more.
    await move(-1 * USD);
    expect(await check()).toBe(0);
    expect(mails).toHaveLength(1);
    const deliveries = (await owner.request('GET', '/api-account/user/alerts/deliveries')).body.data;
    expect(deliveries.map((row: { channel: string }) => row.channel).sort()).toEqual(['email', 'webhook']);
    expect(deliveries.find((row: { channel: string }) => row.channel === 'webhook')).toMatchObject({
      status: 'delivered',
      attempts: 2,
      response_status: 200,
      event: 'balance_below',
    });
    expect((await owner.request('GET', '/api-account/user/alerts/balance')).body.armed).toBe(false);
  });

  it('re-arms when the balance is back at the threshold, and fires again at the next fall', async () => {
    await move(2 * USD); // 5 USD: at the threshold, not under it
    expect(await check()).toBe(0);
    expect((await owner.request('GET', '/api-account/user/alerts/balance')).body.armed).toBe(true);
    await move(-1);
    expect(await check()).toBe(1);
    expect(mails).toHaveLength(2);
  });

  it('two checks at once deliver one alert (the claim is a conditional update)', async () => {
    await move(10 * USD);
    await check();
    await move(-10 * USD);
    const fired = await Promise.all([check(), check(), check()]);
    expect(fired.reduce((sum, count) => sum + count, 0)).toBe(1);
  });

  it('the app checks on its own timer', async () => {
    await move(10 * USD);
    await check();
    await move(-10 * USD);
    const before = mails.length;
    const timer = startBalanceAlerts(
      {
        store: gateway.testStore.store,
        clock: systemClock,
        ids: randomIdGenerator,
        mailer: { send: async (mail) => void mails.push(mail) },
      },
      50,
      (error) => {
        throw error;
      },
    );
    for (let attempt = 0; attempt < 200 && mails.length === before; attempt++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    await timer.close();
    expect(mails.length).toBe(before + 1);
  });

  it('isolation and bad input: another account sees none of it; bad URLs and thresholds are 400s', async () => {
    expect((await other.request('GET', '/api-account/user/alerts/deliveries')).body.data).toEqual([]);
    expect((await other.request('GET', '/api-account/user/alerts/balance')).body.configured).toBe(false);
    for (const [body, param] of [
      [{ threshold: 5, webhook_url: 'ftp://example.com/x' }, 'webhook_url'],
      [{ threshold: 5, webhook_url: 'not a url' }, 'webhook_url'],
      [{ threshold: 5, webhook_url: 'https://user:pw@example.com/x' }, 'webhook_url'],
      [{ threshold: 0 }, 'threshold'],
      [{ threshold: 0.0000000001 }, 'threshold'],
    ] as const) {
      const response = await other.request('PUT', '/api-account/user/alerts/balance', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      if (param === 'webhook_url') expect(response.body.error.param).toBe(param);
    }
    expect((await other.request('DELETE', '/api-account/user/alerts/balance')).status).toBe(404);
    expect((await owner.request('DELETE', '/api-account/user/alerts/balance')).status).toBe(204);
    expect((await owner.request('GET', '/api-account/user/alerts/balance')).body.configured).toBe(false);
  });

  it('erasing an account removes its alert and delivery log', async () => {
    const leaving = await AccountClient.signUp(gateway.url);
    const put = await leaving.request('PUT', '/api-account/user/alerts/balance', {
      threshold: 1,
      webhook_url: hookUrl,
    });
    expect(put.status).toBe(200);
    const userId = (await leaving.request('GET', '/api-account/user/me')).body.id as string;
    await check(); // balance 0 < 1: fires, writes deliveries
    const db = gateway.testStore.store.db;
    expect((await db.selectFrom('alert_deliveries').select('id').where('user_id', '=', userId).execute()).length).toBe(
      2,
    );
    expect(
      (await leaving.request('DELETE', '/api-account/user/me', { password: 'plum-orbit-42-lantern' })).status,
    ).toBe(200);
    expect(await db.selectFrom('balance_alerts').select('user_id').where('user_id', '=', userId).execute()).toEqual([]);
    expect(await db.selectFrom('alert_deliveries').select('id').where('user_id', '=', userId).execute()).toEqual([]);
  });
});

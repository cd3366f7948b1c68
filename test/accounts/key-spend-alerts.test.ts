import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { AccountClient } from '../helpers/account-client.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { STORE_KINDS } from '../helpers/test-store.js';
import { SEEDED_ANSWER, usageEventRow } from '../helpers/usage-events.js';
import { checkKeySpendAlerts, periodStarts } from '../../src/credits/key-spend-alerts.js';
import { verifyWebhook } from '../../src/credits/alert-webhook.js';
import { randomIdGenerator } from '../../src/shared/ids.js';
import { findLiveKeyById, revokeKey } from '../../src/keys/key-lifecycle.js';

/** Issue 27, item 5: spend thresholds per key and UTC period; each fires once per period it is reached in. */
const USD = 1_000_000_000;
// A Wednesday: its ISO week began on Monday the 12th, its month on the 1st.
const WEDNESDAY = Date.UTC(2026, 0, 14, 10, 0, 0);
const DAY = 86_400_000;

describe('periodStarts', () => {
  it('starts the day at UTC midnight, the week on Monday, the month on the 1st', () => {
    expect(periodStarts(WEDNESDAY)).toEqual({
      daily: Date.UTC(2026, 0, 14),
      weekly: Date.UTC(2026, 0, 12),
      monthly: Date.UTC(2026, 0, 1),
    });
    // A Sunday belongs to the week that began six days before; a Monday starts its own.
    expect(periodStarts(Date.UTC(2026, 0, 18, 23, 59)).weekly).toBe(Date.UTC(2026, 0, 12));
    expect(periodStarts(Date.UTC(2026, 0, 19, 0, 0)).weekly).toBe(Date.UTC(2026, 0, 19));
    // A week across a month's end: the week from Monday 29 December 2025.
    expect(periodStarts(Date.UTC(2026, 0, 1, 5)).weekly).toBe(Date.UTC(2025, 11, 29));
  });
});

describe.each(STORE_KINDS)('key spend alerts (%s)', (storeKind) => {
  let gateway: TestGateway;
  let owner: AccountClient;
  let other: AccountClient;
  let receiver: WebhookReceiver;
  let hookUrl: string;
  let secret: string;
  let keyId: string;
  let time = WEDNESDAY;
  let usageCount = 0;
  const clock = { now: () => time };
  const mails: Array<{ to: string; subject: string; text: string }> = [];
  const hooks: Array<{ body: string; signature: string }> = [];
  const replies: number[] = [];

  const spend = async (nanos: number, at = time, key = keyId) => {
    const row = usageEventRow({
      ...SEEDED_ANSWER,
      id: `ksa-${usageCount}`,
      request_id: `ksa-request-${usageCount++}`,
      user_id: gateway.userId,
      key_id: key,
      cost_nanos: nanos,
      created_at: at,
    });
    await gateway.testStore.store.db.insertInto('usage_events').values(row).execute();
  };
  const check = () =>
    checkKeySpendAlerts({
      store: gateway.testStore.store,
      clock,
      ids: randomIdGenerator,
      mailer: { send: async (mail) => void mails.push(mail) },
      sleep: async () => {},
    });
  const alertPath = (id = keyId) => `/api-account/user/api-keys/${id}/alerts/spend`;

  beforeAll(async () => {
    receiver = await startWebhookReceiver(hooks, replies);
    hookUrl = receiver.url;
    gateway = await startTestGateway({
      configText: testConfigText('http://127.0.0.1:9'),
      storeKind,
      deps: { clock, balanceAlerts: { intervalMs: 3_600_000, allowHttpWebhooks: true } },
    });
    owner = await AccountClient.signIn(gateway.url, gateway.email);
    other = await AccountClient.signUp(gateway.url);
    keyId = (await owner.request('POST', '/api-account/user/api-keys', { name: 'alerted key' })).body.key_id;
  });
  afterAll(async () => {
    await gateway?.close();
    await receiver?.close();
  });

  it('sets daily and monthly thresholds with a webhook: the secret is shown once', async () => {
    expect((await owner.request('GET', alertPath())).body).toMatchObject({ configured: false, key_id: keyId });
    const set = await owner.request('PUT', alertPath(), {
      thresholds: { daily: 2, monthly: 10 },
      webhook_url: hookUrl,
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      configured: true,
      thresholds: { daily: 2, weekly: null, monthly: 10 },
      thresholds_nanos: { daily: 2 * USD, weekly: null, monthly: 10 * USD },
      fired: { daily: false, weekly: null, monthly: false },
      period_start: { daily: '2026-01-14T00:00:00.000Z', weekly: '2026-01-12T00:00:00.000Z' },
      email: true,
    });
    expect(set.body.webhook_secret).toMatch(/^whsec_/);
    secret = set.body.webhook_secret;
    const read = await owner.request('GET', alertPath());
    expect(read.body).toMatchObject({ webhook_url: hookUrl, spend: { daily: 0 } });
    expect(read.body.webhook_secret).toBeUndefined();
  });

  it('fires once when the day reaches its threshold: one mail, one signed webhook retried past a 500', async () => {
    await spend(1.5 * USD);
    // Spend from yesterday counts for the month, not for today.
    await spend(3 * USD, WEDNESDAY - DAY);
    expect(await check()).toBe(0);
    replies.push(500);
    await spend(0.5 * USD);
    expect(await check()).toBe(1);
    expect(mails).toHaveLength(1);
    expect(mails[0].to).toBe(gateway.email);
    expect(mails[0].text).toContain('2 USD today');
    expect(mails[0].text).toContain('alerted key');
    expect(hooks).toHaveLength(2);
    const now = Math.floor(time / 1000);
    for (const hook of hooks) expect(verifyWebhook(secret, hook.body, hook.signature, now)).toBe(true);
    expect(JSON.parse(hooks[1].body)).toMatchObject({
      type: 'key.spend_threshold_crossed',
      data: {
        key_id: keyId,
        key_name: 'alerted key',
        period: 'daily',
        period_start: '2026-01-14T00:00:00.000Z',
        spend_nanos: 2 * USD,
        threshold_nanos: 2 * USD,
        currency: 'USD',
      },
    });
    // More spend the same day: nothing more.
    await spend(1 * USD);
    expect(await check()).toBe(0);
    expect(mails).toHaveLength(1);
    const deliveries = (await owner.request('GET', '/api-account/user/alerts/deliveries')).body.data;
    expect(deliveries.find((row: { channel: string }) => row.channel === 'webhook')).toMatchObject({
      status: 'delivered',
      attempts: 2,
      event: 'key_spend_daily',
      key_id: keyId,
    });
    expect((await owner.request('GET', alertPath())).body).toMatchObject({
      fired: { daily: true, monthly: false },
      spend: { daily: 3, weekly: 6, monthly: 6 },
    });
  });

  it('fires again the next day, and the monthly threshold once in the month', async () => {
    time = WEDNESDAY + DAY;
    expect((await owner.request('GET', alertPath())).body.fired.daily).toBe(false);
    expect(await check()).toBe(0);
    await spend(2 * USD);
    expect(await check()).toBe(1);
    expect(mails).toHaveLength(2);
    await spend(3 * USD); // the month: 11 USD
    expect(await check()).toBe(1);
    expect(mails[2].subject).toContain('this month');
    time = WEDNESDAY + 2 * DAY;
    await spend(0.1 * USD);
    expect(await check()).toBe(0);
  });

  it('several passes at once deliver each crossing once (the claim is a conditional update)', async () => {
    time = WEDNESDAY + 3 * DAY;
    await spend(5 * USD);
    const before = mails.length;
    const fired = await Promise.all([check(), check(), check()]);
    expect(fired.reduce((sum, count) => sum + count, 0)).toBe(1);
    expect(mails.length).toBe(before + 1);
  });

  it('a changed threshold re-arms; an unchanged one keeps its state', async () => {
    // Same thresholds, email off: nothing fires again today.
    await owner.request('PUT', alertPath(), {
      thresholds: { daily: 2, monthly: 10 },
      email: false,
      webhook_url: hookUrl,
    });
    expect(await check()).toBe(0);
    const before = hooks.length;
    await owner.request('PUT', alertPath(), {
      thresholds: { daily: 4, monthly: 10 },
      email: false,
      webhook_url: hookUrl,
    });
    expect(await check()).toBe(1);
    expect(hooks.length).toBe(before + 1);
  });

  it('reads the alerts in pages: every key is checked, not only the first page', async () => {
    const ids: string[] = [];
    for (const name of ['paged one', 'paged two', 'paged three']) {
      const id = (await owner.request('POST', '/api-account/user/api-keys', { name })).body.key_id as string;
      expect((await owner.request('PUT', alertPath(id), { thresholds: { daily: 1 }, email: false })).status).toBe(200);
      await spend(1 * USD, time, id);
      ids.push(id);
    }
    const deliveries = (await owner.request('GET', '/api-account/user/alerts/deliveries')).body.data.length;
    const paged = await checkKeySpendAlerts({
      store: gateway.testStore.store,
      clock,
      ids: randomIdGenerator,
      sleep: async () => {},
      pageSize: 1,
    });
    expect(paged).toBe(3);
    // email off and no webhook: nothing to deliver, nothing logged.
    expect((await owner.request('GET', '/api-account/user/alerts/deliveries')).body.data.length).toBe(deliveries);
    for (const id of ids) expect((await owner.request('GET', alertPath(id))).body.fired.daily).toBe(true);
  });

  it('isolation: another account cannot read, set or remove alerts on the key (404)', async () => {
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const response = await other.request(
        method,
        alertPath(),
        method === 'PUT' ? { thresholds: { daily: 1 } } : undefined,
      );
      expect(response.status, method).toBe(404);
      expect(response.body.error.code).toBe('api_key_not_found');
    }
    expect((await other.request('GET', '/api-account/user/alerts/deliveries')).body.data).toEqual([]);
  });

  it('bad input is a 400 in the error envelope', async () => {
    const otherKey = (await other.request('POST', '/api-account/user/api-keys', { name: 'other key' })).body.key_id;
    for (const body of [
      { thresholds: { daily: -1 } },
      { thresholds: { daily: 0 } },
      { thresholds: { daily: 'NaN' } },
      { thresholds: { daily: 0.0000000001 } },
      { thresholds: { hourly: 1 } },
      { thresholds: {} },
      { thresholds: { daily: null } },
      { thresholds: { daily: 1 }, webhook_url: 'ftp://example.com/hook' },
      { thresholds: { daily: 1 }, webhook_url: 'not a url' },
      { daily: 1 },
    ]) {
      const response = await other.request('PUT', alertPath(otherKey), body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.type, JSON.stringify(body)).toBe('invalid_request_error');
    }
    expect((await other.request('DELETE', alertPath(otherKey))).status).toBe(404);
  });

  it('revoking the key removes its alert; erasing the account removes every key alert', async () => {
    const db = gateway.testStore.store.db;
    const spare = (await owner.request('POST', '/api-account/user/api-keys', { name: 'spare' })).body.key_id;
    expect((await owner.request('PUT', alertPath(spare), { thresholds: { weekly: 1 } })).status).toBe(200);
    expect((await owner.request('DELETE', `/api-account/user/api-keys/${spare}`)).status).toBe(200);
    expect(await db.selectFrom('key_spend_alerts').select('key_id').where('key_id', '=', spare).execute()).toEqual([]);
    // The command line's revocation too.
    const cliKey = (await owner.request('POST', '/api-account/user/api-keys', { name: 'cli' })).body.key_id;
    expect((await owner.request('PUT', alertPath(cliKey), { thresholds: { daily: 1 } })).status).toBe(200);
    expect(
      await revokeKey(gateway.testStore.store, (await findLiveKeyById(gateway.testStore.store, cliKey))!, time),
    ).toBe(true);
    expect(await db.selectFrom('key_spend_alerts').select('key_id').where('key_id', '=', cliKey).execute()).toEqual([]);

    const leaving = await AccountClient.signUp(gateway.url);
    const leavingKey = (await leaving.request('POST', '/api-account/user/api-keys', { name: 'k' })).body.key_id;
    expect((await leaving.request('PUT', alertPath(leavingKey), { thresholds: { monthly: 1 } })).status).toBe(200);
    const userId = (await leaving.request('GET', '/api-account/user/me')).body.id as string;
    expect(
      (await leaving.request('DELETE', '/api-account/user/me', { password: 'plum-orbit-42-lantern' })).status,
    ).toBe(200);
    expect(await db.selectFrom('key_spend_alerts').select('key_id').where('user_id', '=', userId).execute()).toEqual(
      [],
    );
  });

  it('removing an alert: DELETE then GET shows none', async () => {
    expect((await owner.request('DELETE', alertPath())).status).toBe(204);
    expect((await owner.request('GET', alertPath())).body.configured).toBe(false);
    expect((await owner.request('DELETE', alertPath())).status).toBe(404);
  });
});

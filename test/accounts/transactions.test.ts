import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { AccountClient, requestJson } from '../helpers/account-client.js';
import { STORE_KINDS } from '../helpers/test-store.js';
import { applyLedgerEntry } from '../../src/credits/credit-ledger.js';
import { createPurchaseLedger } from '../../src/credits/purchase-ledger.js';
import { systemClock } from '../../src/shared/clock.js';
import { ledgerFigures } from '../metering/metering-helpers.js';

/** Issue 17, item 5: GET /api-account/user/transactions agrees with the balance and the usage report. */
const CONFIG = `
billing:
  require_credits: true
  payment_provider: sandbox
`;
const USD = 1_000_000_000;
const DAY = 86_400_000;

interface Row {
  id: string;
  type: string;
  amount: number;
  amount_nanos: number;
  date: string;
  created_at: string;
  key_id: string | null;
  key_name: string | null;
  requests: number | null;
  order_id: string | null;
  reference: string | null;
  description: string;
}

/** One CSV line → its fields (RFC 4180 quoting). */
function parseCsvLine(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < line.length; index++) {
    const char = line[index];
    if (quoted) {
      if (char === '"' && line[index + 1] === '"') {
        field += '"';
        index++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      fields.push(field);
      field = '';
    } else field += char;
  }
  fields.push(field);
  return fields;
}

describe.each(STORE_KINDS)('credit transactions (%s)', (storeKind) => {
  let upstream: MockUpstream;
  let gateway: TestGateway;
  let owner: AccountClient;
  let secondKeyId: string;
  let firstKeyId: string;
  let orderId: string;
  const today = new Date().toISOString().slice(0, 10);
  const yesterday = new Date(Date.now() - DAY).toISOString().slice(0, 10);

  const chat = (key: string) =>
    requestJson(
      gateway.url,
      'POST',
      '/v1/chat/completions',
      { model: 'test/chat', messages: [{ role: 'user', content: 'hello' }] },
      { authorization: `Bearer ${key}` },
    );
  const page = (query = '') =>
    owner.request<{
      data: Row[];
      total: number;
      balance_nanos: number;
      error?: { param: string; code: string; message: string };
    }>('GET', `/api-account/user/transactions${query}`);

  beforeAll(async () => {
    upstream = await startMockUpstream({ scenario: { chunkCount: 20 } });
    gateway = await startTestGateway({ configText: testConfigText(upstream.url, CONFIG), storeKind });
    const store = gateway.testStore.store;
    const signIn = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
      email: gateway.email,
      password: 'plum-orbit-42-lantern',
    });
    owner = new AccountClient(gateway.url, signIn.body.token, gateway.email);

    // A grant (as `gateway credits grant` writes it), a usage charge of yesterday with no usage event.
    await applyLedgerEntry(store, {
      userId: gateway.userId,
      kind: 'grant',
      amount: 10 * USD,
      reference: 'grant:welcome',
      description: 'welcome credits',
    });
    await applyLedgerEntry(
      store,
      { userId: gateway.userId, kind: 'usage', amount: -1234, reference: 'usage:evt_from_yesterday' },
      Date.now() - DAY,
    );
    // A purchase through the sandbox checkout, then its refund (as billing's refund writes it).
    const checkout = await owner.request('POST', '/api-account/user/billing/create-checkout', { amount: 5 });
    orderId = checkout.body.order_id;
    const confirmed = await owner.request('POST', `/api-account/billing/sandbox/${checkout.body.session_id}/confirm`);
    expect(confirmed.body.status).toBe('paid');
    await createPurchaseLedger(store, systemClock).debitRefund(gateway.userId, 2 * USD, `order:${orderId}:refund`);

    // Usage: 3 requests with the first key, 2 with a second one.
    const second = await owner.request('POST', '/api-account/user/api-keys', { name: 'second, "quoted"' });
    secondKeyId = second.body.key_id;
    firstKeyId = (await owner.request('GET', '/api-account/user/api-keys')).body.data.find(
      (key: { key_id: string }) => key.key_id !== secondKeyId,
    ).key_id;
    for (const key of [gateway.apiKey, gateway.apiKey, gateway.apiKey, second.body.key, second.body.key])
      expect((await chat(key)).status).toBe(200);
    for (let attempt = 0; attempt < 100; attempt++) {
      await gateway.gateway.metering!.writer.flush();
      if ((await ledgerFigures(store, gateway.userId)).chargeEntries >= 6) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('lists grants, purchases and refunds one by one and usage per day and key; the amounts sum to the balance', async () => {
    const response = await page();
    expect(response.status).toBe(200);
    const rows = response.body.data;
    expect(response.body.total).toBe(6);
    expect(rows).toHaveLength(6);
    const balance = await owner.request('GET', '/api-account/user/balance');
    const sum = rows.reduce((total, row) => total + row.amount_nanos, 0);
    expect(sum).toBe(balance.body.balance_nanos);
    expect(response.body.balance_nanos).toBe(balance.body.balance_nanos);
    expect(response.body).toMatchObject({ currency: 'USD', limit: 50, offset: 0 });

    expect(rows.find((row) => row.type === 'grant')).toMatchObject({
      amount_nanos: 10 * USD,
      amount: 10,
      description: 'welcome credits',
      reference: 'grant:welcome',
      key_id: null,
      requests: null,
      date: today,
    });
    expect(rows.find((row) => row.type === 'purchase')).toMatchObject({ amount_nanos: 5 * USD, order_id: orderId });
    expect(rows.find((row) => row.type === 'refund')).toMatchObject({ amount_nanos: -2 * USD, order_id: orderId });
    expect(rows.find((row) => row.type === 'usage' && row.date === yesterday)).toMatchObject({
      amount_nanos: -1234,
      key_id: null,
      requests: 1,
    });
    const created = rows.map((row) => Date.parse(row.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
  });

  it('usage lines agree with the usage report: per key, the same requests and cost', async () => {
    const report = (await owner.request('GET', `/api-account/user/usage?start_date=${today}&end_date=${today}`)).body;
    const usage = (await page(`?type=usage&start_date=${today}`)).body.data;
    expect(usage.map((row) => row.key_id).sort()).toEqual([firstKeyId, secondKeyId].sort());
    for (const row of usage) {
      const byKey = report.by_key.find((entry: { key_id: string }) => entry.key_id === row.key_id);
      expect(row.requests).toBe(byKey.requests);
      expect(row.amount_nanos).toBe(-byKey.cost_nanos);
      expect(row.amount_nanos).toBeLessThan(0);
    }
    expect(usage.find((row) => row.key_id === secondKeyId)).toMatchObject({
      requests: 2,
      key_name: 'second, "quoted"',
      id: `usage-${today}-${secondKeyId}`,
    });
    expect(usage.reduce((total, row) => total - row.amount_nanos, 0)).toBe(report.totals.cost_nanos);
  });

  it('pages with limit and offset over the whole list, and filters by type and date', async () => {
    const all = (await page()).body.data.map((row) => row.id);
    const pages: string[] = [];
    for (let offset = 0; offset < 6; offset += 4) {
      const response = await page(`?limit=4&offset=${offset}`);
      expect(response.body).toMatchObject({ total: 6, limit: 4, offset });
      pages.push(...response.body.data.map((row) => row.id));
    }
    expect(pages).toEqual(all);
    expect((await page('?type=refund')).body.data.map((row) => row.type)).toEqual(['refund']);
    const todayOnly = (await page(`?start_date=${today}&end_date=${today}`)).body;
    expect(todayOnly.total).toBe(5);
    expect((await page(`?end_date=${yesterday}`)).body.data.map((row) => row.amount_nanos)).toEqual([-1234]);
  });

  it('exports CSV with ?format=csv or Accept: text/csv, the same rows', async () => {
    const json = (await page()).body.data;
    for (const headers of [{}, { accept: 'text/csv' }] as Record<string, string>[]) {
      const response = await fetch(
        `${gateway.url}/api-account/user/transactions${'accept' in headers ? '' : '?format=csv'}`,
        { headers: { authorization: `Bearer ${owner.token}`, ...headers } },
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(response.headers.get('x-total-count')).toBe('6');
      const lines = (await response.text()).trimEnd().split('\r\n');
      const header = parseCsvLine(lines[0]);
      expect(header).toEqual([
        'id',
        'date',
        'created_at',
        'type',
        'amount_usd',
        'amount_nanos',
        'currency',
        'key_id',
        'key_name',
        'requests',
        'order_id',
        'reference',
        'description',
      ]);
      const rows = lines.slice(1).map(parseCsvLine);
      expect(rows.map((row) => row[0])).toEqual(json.map((row) => row.id));
      expect(rows.reduce((total, row) => total + Number(row[5]), 0)).toBe(
        json.reduce((total, row) => total + row.amount_nanos, 0),
      );
      const second = rows.find((row) => row[7] === secondKeyId)!;
      expect(second[8]).toBe('second, "quoted"');
      expect(rows.find((row) => row[3] === 'refund')![4]).toBe('-2');
    }
  });

  it('shows another user none of it; refuses bad parameters with the allowed values; 401 without a session', async () => {
    const stranger = await AccountClient.signUp(gateway.url);
    const theirs = await stranger.request('GET', '/api-account/user/transactions');
    expect(theirs.body).toMatchObject({ data: [], total: 0, balance_nanos: 0 });

    const bonus = await page('?type=bonus');
    expect(bonus.status).toBe(400);
    expect(bonus.body.error).toMatchObject({ param: 'type', code: 'invalid_value' });
    for (const value of ['grant', 'purchase', 'usage', 'refund'])
      expect(bonus.body.error!.message).toContain(`'${value}'`);
    expect((await page('?format=xml')).body.error?.param).toBe('format');
    expect((await page('?limit=0')).body.error?.param).toBe('limit');
    expect((await page('?start_date=2026-02-30')).body.error?.param).toBe('start_date');
    expect((await page('?page=2')).body.error).toMatchObject({ param: 'page', code: 'unknown_parameter' });
    expect((await requestJson(gateway.url, 'GET', '/api-account/user/transactions')).status).toBe(401);
  });
});

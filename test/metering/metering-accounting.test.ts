import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { STORE_KINDS } from '../helpers/test-store.js';
import { applyLedgerEntry } from '../../src/credits/credit-ledger.js';
import { accountGet, chat, ledgerFigures, signIn } from './metering-helpers.js';

const CREDITS = `
billing:
  require_credits: true
`;

/** Answers by the user's message: "fail" → 500, "slow" → a long slow stream, else 20 words. */
function scenarioFor(body: any) {
  const text = JSON.stringify(body?.messages ?? '');
  if (text.includes('fail')) return { failure: { kind: 'status' as const, status: 500 } };
  if (text.includes('slow')) return { chunkCount: 200, chunkGapMs: 20 };
  return { chunkCount: 20 };
}

async function waitForEvents(gateway: TestGateway, count: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    await gateway.gateway.metering!.flush();
    const figures = await ledgerFigures(gateway.testStore.store, gateway.userId);
    if (figures.events >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`fewer than ${count} usage events were written`);
}

describe.each(STORE_KINDS)('metering and credits on %s', (kind) => {
  let upstream: MockUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    upstream = await startMockUpstream({ scenario: scenarioFor });
    gateway = await startTestGateway({ configText: testConfigText(upstream.url, CREDITS), storeKind: kind });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('refuses a request the balance cannot cover with 402, and records it at no cost', async () => {
    const response = await chat(gateway.url, gateway.apiKey, { max_tokens: 10 });
    expect(response.status).toBe(402);
    expect(await response.json()).toEqual({
      error: {
        message: expect.stringMatching(/credit balance/),
        type: 'insufficient_credits',
        code: 'insufficient_credits',
        param: null,
      },
    });
    await waitForEvents(gateway, 1);
    const figures = await ledgerFigures(gateway.testStore.store, gateway.userId);
    expect(figures).toMatchObject({ events: 1, usageCost: 0, charged: 0, balance: 0 });
  });

  it('charges streamed, whole, failed and aborted requests so usage, ledger, balance and report agree to the unit', async () => {
    const granted = 1_000_000_000; // $1
    expect(
      (
        await applyLedgerEntry(gateway.testStore.store, {
          userId: gateway.userId,
          kind: 'grant',
          amount: granted,
          reference: `test-grant-${kind}`,
        })
      ).applied,
    ).toBe(true);

    // Whole: 2 prompt words, 20 completion words at $0.5 / $1.5 per million tokens.
    const whole = await chat(gateway.url, gateway.apiKey, {});
    expect(whole.status).toBe(200);
    expect((await whole.json()).usage).toMatchObject({ prompt_tokens: 2, completion_tokens: 20 });

    const streamed = await chat(gateway.url, gateway.apiKey, { stream: true, stream_options: { include_usage: true } });
    expect(streamed.status).toBe(200);
    expect(await streamed.text()).toContain('[DONE]');

    const streamedNoUsage = await chat(gateway.url, gateway.apiKey, { stream: true });
    await streamedNoUsage.text();

    const failed = await chat(gateway.url, gateway.apiKey, { messages: [{ role: 'user', content: 'fail now' }] });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    await failed.text();

    // Aborted mid-stream: the client reads a few chunks and leaves.
    const controller = new AbortController();
    const aborted = await chat(
      gateway.url,
      gateway.apiKey,
      { stream: true, messages: [{ role: 'user', content: 'slow please' }] },
      { signal: controller.signal },
    );
    const reader = aborted.body!.getReader();
    let received = '';
    while ((received.match(/data: /g) ?? []).length < 5)
      received += new TextDecoder().decode((await reader.read()).value);
    controller.abort();

    await waitForEvents(gateway, 6);
    const { store } = gateway.testStore;
    const events = await store.db
      .selectFrom('usage_events')
      .selectAll()
      .where('user_id', '=', gateway.userId)
      .orderBy('created_at')
      .execute();
    const normal = events.filter((event) => event.status === 200 && event.client_aborted === 0);
    expect(normal).toHaveLength(3);
    for (const event of normal) {
      expect(event).toMatchObject({
        prompt_tokens: 2,
        completion_tokens: 20,
        total_tokens: 22,
        tokens_estimated: 0,
        cost_nanos: 2 * 500 + 20 * 1500,
        provider_id: 'mock',
        model_id: 'test/chat',
        attempt_count: 1,
      });
    }
    const failedEvent = events.find((event) => event.status >= 500)!;
    expect(failedEvent).toMatchObject({ cost_nanos: 0, prompt_tokens: 0, completion_tokens: 0 });
    // Routing retries a 5xx once by default (routing.retries: 1): both attempts are recorded.
    expect(JSON.parse(failedEvent.attempts)).toHaveLength(2);
    expect(failedEvent.attempt_count).toBe(2);
    const abortedEvent = events.find((event) => event.client_aborted === 1)!;
    expect(abortedEvent.tokens_estimated).toBe(1);
    expect(abortedEvent.completion_tokens).toBeGreaterThan(0);
    expect(abortedEvent.cost_nanos).toBe(abortedEvent.prompt_tokens * 500 + abortedEvent.completion_tokens * 1500);

    const figures = await ledgerFigures(store, gateway.userId);
    const expectedCost = events.reduce((sum, event) => sum + Number(event.cost_nanos), 0);
    expect(figures.usageCost).toBe(expectedCost);
    expect(figures.charged).toBe(expectedCost);
    expect(figures.chargeEntries).toBe(events.filter((event) => event.cost_nanos > 0).length);
    expect(figures.balance).toBe(granted - expectedCost);

    const token = await signIn(gateway);
    const balance = await accountGet(gateway, token, '/api-account/user/balance');
    expect(balance.status).toBe(200);
    expect(balance.body).toMatchObject({
      currency: 'USD',
      balance_nanos: granted - expectedCost,
      held_nanos: 0,
      balance: (granted - expectedCost) / 1e9,
    });

    const report = await accountGet(gateway, token, '/api-account/user/usage');
    expect(report.status).toBe(200);
    // The 402 of the first test never reached a model: it is counted under failures, not as a request.
    expect(report.body.failures).toContainEqual({
      status: 402,
      error_code: 'insufficient_credits',
      requests: 1,
      models: ['test/chat'],
    });
    expect(report.body.totals).toMatchObject({
      requests: 5,
      prompt_tokens: events.reduce((sum, event) => sum + Number(event.prompt_tokens), 0),
      cost_nanos: expectedCost,
    });
    expect(report.body.daily).toHaveLength(30);
    expect(report.body.daily.at(-1).date).toBe(new Date().toISOString().slice(0, 10));
    expect(report.body.daily.reduce((sum: number, day: any) => sum + day.cost_nanos, 0)).toBe(expectedCost);
    expect(report.body.daily.filter((day: any) => day.requests === 0)).toHaveLength(29);
    expect(report.body.by_model).toEqual([
      expect.objectContaining({ model: 'test/chat', requests: 5, cost_nanos: expectedCost }),
    ]);
    expect(report.body.by_key).toEqual([
      expect.objectContaining({ name: 'test key', requests: 5, cost_nanos: expectedCost }),
    ]);
  });

  it('validates the usage dates with 400s naming the parameter, and needs a session', async () => {
    const token = await signIn(gateway);
    const cases: Array<[string, string, string]> = [
      ['?start_date=2025-02-30', 'start_date', 'invalid_date'],
      ['?end_date=tomorrow', 'end_date', 'invalid_date'],
      ['?start_date=2025-03-02&end_date=2025-03-01', 'start_date', 'invalid_date_range'],
      ['?start_date=2024-01-01&end_date=2025-01-02', 'end_date', 'date_range_too_long'],
    ];
    for (const [query, param, code] of cases) {
      const response = await accountGet(gateway, token, `/api-account/user/usage${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param, code });
    }
    const oneDay = await accountGet(
      gateway,
      token,
      '/api-account/user/usage?start_date=2024-02-29&end_date=2024-02-29',
    );
    expect(oneDay.body).toMatchObject({
      start_date: '2024-02-29',
      end_date: '2024-02-29',
      totals: { requests: 0, cost_nanos: 0 },
    });
    expect(oneDay.body.daily).toEqual([expect.objectContaining({ date: '2024-02-29', requests: 0 })]);
    expect((await fetch(`${gateway.url}/api-account/user/usage`)).status).toBe(401);
    expect((await fetch(`${gateway.url}/api-account/user/balance`)).status).toBe(401);
  });
});

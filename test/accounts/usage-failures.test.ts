/**
 * Usage counts requests that reached a model; requests refused before any provider was tried (404
 * unknown model, 402 no credits) are shown apart by status and error code. Regression test for issue 28:
 * a bogus id like `nope/model` was counted as traffic and listed under the models.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { applyLedgerEntry } from '../../src/credits/credit-ledger.js';
import { withoutUnsent } from '../../src/accounts/usage/usage-failures.js';
import { accountGet, chat, signIn } from '../metering/metering-helpers.js';
import { usageEvents } from '../helpers/usage-events.js';

describe('usage separates failures from requests that reached a model', () => {
  let upstream: MockUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    upstream = await startMockUpstream({ scenario: { chunkCount: 5 } });
    gateway = await startTestGateway({
      configText: testConfigText(upstream.url, '\nbilling:\n  require_credits: true\n'),
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('counts only sent requests, lists nope/model under failures and never under models', async () => {
    expect((await chat(gateway.url, gateway.apiKey, { max_tokens: 10 })).status).toBe(402);
    await applyLedgerEntry(gateway.testStore.store, {
      userId: gateway.userId,
      kind: 'grant',
      amount: 1_000_000_000,
      reference: 'usage-failures-grant',
    });
    expect((await chat(gateway.url, gateway.apiKey, {})).status).toBe(200);
    for (let i = 0; i < 2; i++)
      expect((await chat(gateway.url, gateway.apiKey, { model: 'nope/model' })).status).toBe(404);
    const events = await usageEvents(gateway, 4);
    const notFound = events.find((event) => event.status === 404)!;

    const report = await accountGet(gateway, await signIn(gateway), '/api-account/user/usage');
    expect(report.status).toBe(200);
    expect(report.body.totals.requests).toBe(1);
    expect(report.body.daily.reduce((sum: number, day: any) => sum + day.requests, 0)).toBe(1);
    expect(report.body.by_model.map((row: any) => [row.model, row.requests])).toEqual([['test/chat', 1]]);
    expect(report.body.by_key.map((row: any) => row.requests)).toEqual([1]);
    expect(report.body.failures).toEqual([
      { status: 404, error_code: notFound.error_code, requests: 2, models: ['nope/model'] },
      { status: 402, error_code: 'insufficient_credits', requests: 1, models: ['test/chat'] },
    ]);
  });
});

describe('withoutUnsent', () => {
  const figures = (requests: number, cost = 0) => ({
    requests,
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    reasoningTokens: 0,
    totalTokens: cost,
    costNanos: cost,
  });

  it('keeps a model that cost money even when none of its requests were sent', () => {
    const report = {
      totals: figures(3, 7),
      daily: [{ day: 0, ...figures(3, 7) }],
      byModel: [
        { model: 'a/paid', ...figures(1, 7) },
        { model: 'nope/model', ...figures(2) },
      ],
      byKey: [{ keyId: 'k', name: 'k', ...figures(3, 7) }],
    };
    const result = withoutUnsent(report, [{ day: 0, model: 'nope/model', keyId: 'k', requests: 2 }]);
    expect(result.totals.requests).toBe(1);
    expect(result.daily[0].requests).toBe(1);
    expect(result.byModel.map((row) => row.model)).toEqual(['a/paid']);
    expect(result.byKey[0]).toMatchObject({ requests: 1, costNanos: 7 });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { accountGet, chat, signIn } from '../metering/metering-helpers.js';

/** The key records' spend fields come from metering's per-key counters. */
describe('key spend on key records', () => {
  let upstream: MockUpstream;
  let gateway: TestGateway;
  let token: string;

  beforeAll(async () => {
    upstream = await startMockUpstream();
    gateway = await startTestGateway({ configText: testConfigText(upstream.url) });
    token = await signIn(gateway);
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('shows this month and total spend equal to the usage report, per key', async () => {
    const spender = await gateway.createKey({ name: 'spender' });
    const idle = await gateway.createKey({ name: 'idle' });
    for (let index = 0; index < 3; index++) expect((await chat(gateway.url, spender, {})).status).toBe(200);

    // Usage events are written in batches: wait until the report has all three requests.
    let usage = (await accountGet(gateway, token, '/api-account/user/usage')).body;
    for (
      let wait = 0;
      wait < 50 && usage.by_key.find((row: { name: string }) => row.name === 'spender')?.requests !== 3;
      wait++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      usage = (await accountGet(gateway, token, '/api-account/user/usage')).body;
    }
    const listed = (await accountGet(gateway, token, '/api-account/user/api-keys')).body.data as Array<{
      name: string;
      spend_this_month: number;
      spend_total: number;
    }>;
    const spent = listed.find((key) => key.name === 'spender')!;
    const reported = usage.by_key.find((row: { name: string }) => row.name === 'spender');
    expect(spent.spend_total).toBeGreaterThan(0);
    expect(spent.spend_this_month).toBe(spent.spend_total);
    expect(spent.spend_total).toBe(reported.cost);
    expect(listed.find((key) => key.name === 'idle')).toMatchObject({ spend_this_month: 0, spend_total: 0 });
    expect(idle).toMatch(/^sk-gw-/);
  });
});

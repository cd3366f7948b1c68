import { describe, expect, it } from 'vitest';
import { deliverWebhook, retryDelayMs, signWebhook, verifyWebhook } from './alert-webhook.js';

const BODY = '{"type":"balance.below_threshold"}';

describe('balance alert webhook', () => {
  it('signs the timestamp with the body; a receiver accepts it, not a changed body, key or an old time', () => {
    const header = signWebhook('whsec_a', BODY, 1_700_000_000);
    expect(header).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
    expect(verifyWebhook('whsec_a', BODY, header, 1_700_000_010)).toBe(true);
    expect(verifyWebhook('whsec_a', `${BODY} `, header, 1_700_000_010)).toBe(false);
    expect(verifyWebhook('whsec_b', BODY, header, 1_700_000_010)).toBe(false);
    expect(verifyWebhook('whsec_a', BODY, header, 1_700_000_000 + 301)).toBe(false);
    expect(verifyWebhook('whsec_a', BODY, 'garbage', 1_700_000_000)).toBe(false);
  });

  it('backs off ×4 from the base delay', () => {
    expect([1, 2, 3].map((attempt) => retryDelayMs(attempt))).toEqual([1000, 4000, 16000]);
  });

  const run = (statuses: Array<number | Error>) => {
    const calls: string[] = [];
    const waits: number[] = [];
    const fakeFetch = (async (_url: string, init: RequestInit) => {
      calls.push(String((init.headers as Record<string, string>)['x-gateway-signature']));
      const next = statuses.shift()!;
      if (next instanceof Error) throw next;
      return new Response(null, { status: next });
    }) as typeof fetch;
    return deliverWebhook({
      url: 'https://hooks.example/x',
      secret: 's',
      body: BODY,
      fetch: fakeFetch,
      now: () => 1_700_000_000_000,
      sleep: async (ms) => void waits.push(ms),
    }).then((result) => ({ result, calls, waits }));
  };

  it('retries a 5xx or a network failure with backoff until a 2xx', async () => {
    const { result, calls, waits } = await run([500, new Error('connect ECONNREFUSED'), 204]);
    expect(result).toEqual({ delivered: true, attempts: 3, responseStatus: 204, error: null });
    expect(calls).toHaveLength(3);
    expect(waits).toEqual([1000, 4000]);
  });

  it('does not retry a 4xx refusal, and gives up after four attempts', async () => {
    expect((await run([400])).result).toMatchObject({ delivered: false, attempts: 1, responseStatus: 400 });
    expect((await run([503, 503, 503, 503, 200])).result).toMatchObject({
      delivered: false,
      attempts: 4,
      error: 'HTTP 503',
    });
  });
});

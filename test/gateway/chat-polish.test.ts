import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hello, startRoutingHarness, type RoutingHarness } from '../routing/routing-test-setup.js';

// Rough edges found by trying real clients against /v1/chat/completions (issue 19, item 5).
let harness: RoutingHarness;
beforeAll(async () => {
  harness = await startRoutingHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => {
  harness.bad.setScenario({ chunkCount: 5 });
  harness.good.setScenario({ chunkCount: 5 });
  harness.bad.requests.length = 0;
  harness.good.requests.length = 0;
});

async function post(body: Record<string, unknown>, path = '/chat/completions') {
  const response = await fetch(`${harness.gateway.baseURL}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${harness.gateway.apiKey}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

describe('range and enum errors say the allowed range or values', () => {
  it.each([
    ['temperature', 3, "Invalid 'temperature': must be at most 2, got 3."],
    ['temperature', -1, "Invalid 'temperature': must be at least 0, got -1."],
    ['top_p', 1.5, "Invalid 'top_p': must be at most 1, got 1.5."],
    ['frequency_penalty', -3, "Invalid 'frequency_penalty': must be at least -2, got -3."],
    ['presence_penalty', 2.5, "Invalid 'presence_penalty': must be at most 2, got 2.5."],
    ['n', 0, "Invalid 'n': must be at least 1, got 0."],
  ])('%s = %s', async (param, value, message) => {
    const result = await post({ model: 'test/good-only', messages: hello, [param]: value });
    expect(result.status).toBe(400);
    expect(result.body.error).toMatchObject({ message, param, type: 'invalid_request_error' });
    expect(harness.good.requests).toHaveLength(0);
  });

  it('a statistics window outside its enum lists the allowed windows', async () => {
    const response = await fetch(`${harness.gateway.url}/rankings/models?window=fortnight`);
    expect(response.status).toBe(400);
    const body = (await response.json()) as any;
    expect(body.error.param).toBe('window');
    expect(body.error.message).toMatch(/^Invalid value for 'window': "fortnight". Supported values are: '.+', '.+'/);
  });
});

describe('tools the gateway cannot translate are refused by name', () => {
  it('a custom tool gets "custom tools are not supported", not a missing-field error', async () => {
    const result = await post({
      model: 'test/good-only',
      messages: hello,
      tools: [{ type: 'custom', custom: { name: 'grammar', description: 'free text' } }],
    });
    expect(result.status).toBe(400);
    expect(result.body.error.message).toMatch(/custom tools are not supported; use function tools/);
    expect(result.body.error.param).toBe('tools[0].type');
  });
});

describe('x-gateway-attempts and rate limits', () => {
  it('counts a retry on the same endpoint', async () => {
    let calls = 0;
    harness.good.setScenario(() => (++calls === 1 ? { failure: { kind: 'status', status: 500 } } : {}));
    const result = await post({ model: 'test/good-only', messages: hello });
    expect(result.status).toBe(200);
    expect(result.headers.get('x-gateway-attempts')).toBe('2');
  });

  it('every endpoint rate-limited upstream: 429 with Retry-After (the earliest), and still 429 after many requests', async () => {
    harness.bad.setScenario({ failure: { kind: 'status', status: 429, headers: { 'retry-after': '40' } } });
    harness.good.setScenario({ failure: { kind: 'status', status: 429, headers: { 'retry-after': '20' } } });
    // More requests than the breaker's failure threshold (3): rate limits must not open it (that gave 503).
    for (let round = 0; round < 5; round++) {
      const result = await post({ model: 'test/multi', messages: hello });
      expect(result.status).toBe(429);
      expect(result.headers.get('retry-after')).toBe('20');
      expect(result.body.error.type).toBe('rate_limit_error');
      expect(result.headers.get('x-gateway-attempts')).toBe('2');
    }
  });

  it('a rate limit without retry-after still tells the client when to come back', async () => {
    harness.bad.setScenario({ failure: { kind: 'status', status: 429 } });
    const result = await post({ model: 'test/bad-only', messages: hello });
    expect(result.status).toBe(429);
    expect(Number(result.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

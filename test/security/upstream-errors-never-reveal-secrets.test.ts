import { afterEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type AnswerFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

/*
 * Issue 16, finding 4: upstream error messages were returned and logged verbatim, so an upstream
 * that echoes the Authorization header or a configured custom header handed the provider key to
 * the client. The fake upstream here echoes both, in every kind of answer; neither the client nor
 * any captured log line may contain either secret.
 */
const API_KEY = 'sk-upstream-7Qx9LmZp2VbN4rT8';
const CUSTOM = 'custom-header-secret-K3j9Wq';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function config(upstreamUrl: string): string {
  return `
server:
  body_limit_bytes: 65536
providers:
  - id: echo
    name: Echo AI
    type: openai
    base_url: ${upstreamUrl}
    api_key: ${API_KEY}
    headers: { x-org-token: ${CUSTOM} }
    timeouts: { connect_ms: 1000, first_byte_ms: 2000, idle_ms: 1500, total_ms: 5000 }
models:
  - id: test/echo
    endpoints:
      - { provider: echo, upstream_model: echo-model, pricing: { prompt: 0.5, completion: 1.5 } }
routing:
  retries: 0
`;
}

/** What the upstream saw, written back the way a careless provider would. */
const echoed = (request: { headers: Record<string, unknown> }) =>
  `got authorization=${String(request.headers.authorization)} x-org-token=${String(request.headers['x-org-token'])}`;

const errorEcho =
  (status: number): AnswerFor =>
  (request) => ({
    status,
    body: JSON.stringify({ error: { message: echoed(request), type: 'invalid_request_error', param: CUSTOM } }),
  });

async function setUp(): Promise<{ upstream: FakeUpstream; gateway: TestGateway }> {
  const upstream = await startFakeUpstream();
  cleanups.push(() => upstream.close());
  const gateway = await startTestGateway({ configText: config(upstream.url), storeKind: 'postgres' });
  cleanups.push(() => gateway.close());
  return { upstream, gateway };
}

async function chat(gateway: TestGateway, stream = false) {
  const response = await fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` },
    body: JSON.stringify({ model: 'test/echo', messages: [{ role: 'user', content: 'hi' }], stream }),
  });
  return { status: response.status, text: await response.text() };
}

function expectNoSecret(text: string): void {
  expect(text).not.toContain(API_KEY);
  expect(text).not.toContain(CUSTOM);
}

describe('finding 4: an echoing upstream never reveals the gateway’s secrets', () => {
  it.each([401, 403])(
    'upstream %i: a generic 502 "refused the gateway’s credentials", the scrubbed detail only in the log',
    async (status) => {
      const { upstream, gateway } = await setUp();
      upstream.answer(errorEcho(status));
      const { status: answered, text } = await chat(gateway);
      // The upstream really was sent both secrets, and echoed them.
      expect(upstream.requests[0]!.headers.authorization).toBe(`Bearer ${API_KEY}`);
      expect(upstream.requests[0]!.headers['x-org-token']).toBe(CUSTOM);
      expect(answered).toBe(502);
      const error = JSON.parse(text).error;
      expect(error).toMatchObject({ type: 'upstream_error', code: 'upstream_auth_failed', param: null });
      expect(error.message).toMatch(/refused the gateway's credentials/);
      expect(error.message).not.toMatch(/got authorization/);
      expectNoSecret(text);
      const logs = gateway.logs.join('');
      expect(logs).toMatch(/refused the gateway’s credentials/);
      expect(logs).toContain('got authorization=Bearer [redacted] x-org-token=[redacted]');
      expectNoSecret(logs);
    },
  );

  it.each([
    [400, 400],
    [422, 422],
    [500, 502],
    [503, 503],
  ])(
    'upstream %i echoing the secrets: answered %i with them scrubbed from message and param',
    async (status, expected) => {
      const { upstream, gateway } = await setUp();
      upstream.answer(errorEcho(status));
      const { status: answered, text } = await chat(gateway);
      expect(answered).toBe(expected);
      const error = JSON.parse(text).error;
      expect(error.message).toContain('got authorization=Bearer [redacted] x-org-token=[redacted]');
      expectNoSecret(text);
      expectNoSecret(gateway.logs.join(''));
    },
  );

  it('an error event in the middle of a stream is scrubbed too', async () => {
    const { upstream, gateway } = await setUp();
    upstream.answer((request) => ({
      headers: { 'content-type': 'text/event-stream' },
      body: [
        `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'echo-model', choices: [{ index: 0, delta: { role: 'assistant', content: 'he' }, finish_reason: null }] })}\n\n`,
        `data: ${JSON.stringify({ error: { message: echoed(request), type: 'server_error', code: CUSTOM } })}\n\n`,
      ],
    }));
    const { status, text } = await chat(gateway, true);
    expect(status).toBe(200);
    expect(text).toContain('event: error');
    expect(text).toContain('got authorization=Bearer [redacted]');
    expectNoSecret(text);
    expectNoSecret(gateway.logs.join(''));
  });

  it('a secret logged by any code path is scrubbed from the log line', async () => {
    const { gateway } = await setUp();
    // The app's logger itself: whatever reaches it with a configured secret leaves without it.
    gateway.gateway.app.log.warn({ detail: `key ${API_KEY}` }, `header ${CUSTOM}`);
    const last = gateway.logs.at(-1)!;
    expect(last).toContain('key [redacted]');
    expect(last).toContain('header [redacted]');
    expectNoSecret(last);
  });
});

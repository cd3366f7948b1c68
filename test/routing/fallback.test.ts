import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import type { MockScenario } from '../../src/mock-upstream/mock-upstream.js';
import { drain, hello, startRoutingHarness, type RoutingHarness } from './routing-test-setup.js';

// The breaker is set out of reach here: these tests are about one request's fallbacks.
let harness: RoutingHarness;
beforeAll(async () => {
  harness = await startRoutingHarness('  circuit_breaker: { failure_threshold: 1000 }');
});
afterAll(async () => harness?.close());
beforeEach(() => {
  harness.bad.setScenario({ chunkCount: 5 });
  harness.good.setScenario({ chunkCount: 5 });
  harness.bad.requests.length = 0;
  harness.good.requests.length = 0;
  harness.outcomes.length = 0;
});

async function lastOutcome() {
  await expect.poll(() => harness.outcomes.length).toBeGreaterThan(0);
  return harness.outcomes.at(-1)!;
}

const failuresBeforeAnswer: Array<[string, MockScenario['failure']]> = [
  ['hangs before headers', { kind: 'hang' }],
  ['answers 429 with retry-after', { kind: 'status', status: 429, headers: { 'retry-after': '30' } }],
  ['answers 500', { kind: 'status', status: 500 }],
  ['answers 503', { kind: 'status', status: 503 }],
  ['resets the connection', { kind: 'reset' }],
];

describe('a failing endpoint before the answer started: the client gets the fallback answer', () => {
  it.each(failuresBeforeAnswer)('first endpoint %s (non-stream)', async (_name, failure) => {
    harness.bad.setScenario({ failure });
    const started = Date.now();
    const { data, response } = await harness.client.chat.completions
      .create({ model: 'test/multi', messages: hello })
      .withResponse();
    expect(Date.now() - started).toBeLessThan(6000);
    expect(data.model).toBe('test/multi');
    expect(data.choices[0].message.content).toMatch(/\w/);
    expect(response.headers.get('x-gateway-provider')).toBe('good');
    expect(response.headers.get('x-gateway-model')).toBe('test/multi');
    expect(response.headers.get('x-gateway-attempts')).toBe('2');
    expect(harness.bad.requests).toHaveLength(1);
    expect(harness.good.requests).toHaveLength(1);
    const outcome = await lastOutcome();
    expect(outcome.attempts.map((attempt) => attempt.providerId)).toEqual(['bad', 'good']);
    expect(outcome.attempts[0].errorCode).not.toBeNull();
    expect(outcome.attempts[1]).toMatchObject({ status: 200, errorCode: null });
  });

  it.each(failuresBeforeAnswer)(
    'first endpoint %s (stream): one whole stream from the fallback',
    async (_name, failure) => {
      harness.bad.setScenario({ failure });
      const { data: stream, response } = await harness.client.chat.completions
        .create({ model: 'test/multi', messages: hello, stream: true })
        .withResponse();
      const { chunks, error } = await drain(stream);
      expect(error).toBeNull();
      expect(response.headers.get('x-gateway-provider')).toBe('good');
      expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
      expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    },
  );

  it('a refused connection falls back', async () => {
    const { data, response } = await harness.client.chat.completions
      .create({ model: 'test/dead-first', messages: hello })
      .withResponse();
    expect(data.choices[0].message.content).toMatch(/\w/);
    expect(response.headers.get('x-gateway-attempts')).toBe('2');
    const outcome = await lastOutcome();
    expect(outcome.attempts[0]).toMatchObject({ providerId: 'dead', errorCode: 'upstream_unreachable' });
  });

  it.each<[string, MockScenario['failure']]>([
    ['a garbage body', { kind: 'garbage' }],
    ['a body that closes halfway', { kind: 'close-mid-stream', afterChunks: 2 }],
    ['a body that stalls halfway', { kind: 'hang-mid-stream', afterChunks: 2 }],
  ])('non-stream: %s is read before anything is sent, so it still falls back', async (_name, failure) => {
    harness.bad.setScenario({ failure });
    const { data, response } = await harness.client.chat.completions
      .create({ model: 'test/multi', messages: hello })
      .withResponse();
    expect(data.choices[0].message.content).toMatch(/\w/);
    expect(response.headers.get('x-gateway-provider')).toBe('good');
  });
});

describe('a stream that has started is never retried: a later failure ends it with an error event', () => {
  it.each<[string, MockScenario['failure'], RegExp]>([
    ['closes mid-stream', { kind: 'close-mid-stream', afterChunks: 2 }, /closed|interrupted|terminated/i],
    ['hangs mid-stream', { kind: 'hang-mid-stream', afterChunks: 2 }, /stopped sending/],
    ['sends garbage', { kind: 'garbage' }, /not JSON/],
  ])('upstream %s → one error, no chunk from another endpoint', async (_name, failure, message) => {
    harness.bad.setScenario({ chunkCount: 10, failure });
    const started = Date.now();
    const stream = await harness.client.chat.completions.create({ model: 'test/multi', messages: hello, stream: true });
    const { chunks, error } = await drain(stream);
    expect(Date.now() - started).toBeLessThan(6000);
    expect(String(error)).toMatch(message);
    // Never spliced: every chunk comes from the one completion, and the fallback was never called.
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBeLessThanOrEqual(1);
    expect(harness.good.requests).toHaveLength(0);
    const outcome = await lastOutcome();
    expect(outcome.attempts).toHaveLength(1);
    expect(outcome.status).toBeGreaterThanOrEqual(500);
  });
});

describe('client errors and exhausted fallbacks', () => {
  it('an upstream 400 is returned as it is, never retried', async () => {
    harness.bad.setScenario({
      failure: {
        kind: 'status',
        status: 400,
        body: JSON.stringify({ error: { message: 'bad input', type: 'invalid_request_error', param: 'messages' } }),
      },
    });
    const error = await harness.client.chat.completions
      .create({ model: 'test/multi', messages: hello })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('bad input');
    expect(harness.bad.requests).toHaveLength(1);
    expect(harness.good.requests).toHaveLength(0);
  });

  // 401 and 403 are about the gateway's credentials at that provider, not the request (issue 16,
  // finding 4): another provider is tried; see test/security/upstream-errors-never-reveal-secrets.test.ts.
  it.each([401, 403])('an upstream %i falls back to the next provider', async (status) => {
    harness.bad.setScenario({ failure: { kind: 'status', status } });
    const { response } = await harness.client.chat.completions
      .create({ model: 'test/multi', messages: hello })
      .withResponse();
    expect(response.headers.get('x-gateway-provider')).toBe('good');
    expect(harness.good.requests).toHaveLength(1);
  });

  it.each([404, 413])('an upstream %i is not retried', async (status) => {
    harness.bad.setScenario({ failure: { kind: 'status', status } });
    const error = await harness.client.chat.completions
      .create({ model: 'test/multi', messages: hello })
      .catch((caught: unknown) => caught);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(status);
    expect(harness.good.requests).toHaveLength(0);
  });

  it('every endpoint hanging: one clean 504 within the deadline, never a hang', async () => {
    harness.bad.setScenario({ failure: { kind: 'hang' } });
    harness.good.setScenario({ failure: { kind: 'hang' } });
    const started = Date.now();
    const error = await harness.client.chat.completions
      .create({ model: 'test/multi', messages: hello })
      .catch((caught: unknown) => caught);
    const elapsed = Date.now() - started;
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
    expect(elapsed).toBeLessThan(6000 + 1500);
  });

  it('every endpoint failing with 5xx: retried after a backoff, then one 502', async () => {
    harness.bad.setScenario({ failure: { kind: 'status', status: 500 } });
    harness.good.setScenario({ failure: { kind: 'status', status: 502 } });
    // Counted by their own text: the hanging test before may leave a request of its own that the
    // mock (in this process) reads only after the reset, on a loaded machine.
    const ownText = 'every endpoint failing with 5xx';
    const own = (requests: Array<{ body: unknown }>) =>
      requests.filter((request) => JSON.stringify(request.body).includes(ownText));
    const { response } = await harness.client.chat.completions
      .create({ model: 'test/multi', messages: [{ role: 'user', content: ownText }] })
      .withResponse()
      .catch((caught: InstanceType<typeof OpenAI.APIError>) => ({ response: caught }));
    expect((response as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((response as InstanceType<typeof OpenAI.APIError>).headers?.get('x-gateway-attempts')).toBe('4');
    // retries: 1 (the default) is a second round over both endpoints.
    expect(own(harness.bad.requests)).toHaveLength(2);
    expect(own(harness.good.requests)).toHaveLength(2);
    const outcome = await lastOutcome();
    expect(outcome.attempts.map((attempt) => attempt.providerId)).toEqual(['bad', 'good', 'bad', 'good']);
  });

  it('retry-after is honoured: the same endpoint is tried again once it has passed', async () => {
    let calls = 0;
    harness.bad.setScenario(() =>
      ++calls === 1 ? { failure: { kind: 'status', status: 429, headers: { 'retry-after': '1' } } } : {},
    );
    const started = Date.now();
    const { data, response } = await harness.client.chat.completions
      .create({ model: 'test/bad-only', messages: hello })
      .withResponse();
    expect(data.choices[0].message.content).toMatch(/\w/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(response.headers.get('x-gateway-attempts')).toBe('2');
  });

  it('a retry-after beyond the deadline is not waited for: the 429 comes back at once, with its retry-after', async () => {
    harness.bad.setScenario({ failure: { kind: 'status', status: 429, headers: { 'retry-after': '60' } } });
    const started = Date.now();
    const response = await fetch(`${harness.gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${harness.gateway.apiKey}` },
      body: JSON.stringify({ model: 'test/bad-only', messages: hello }),
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('60');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(harness.bad.requests).toHaveLength(1);
  });
});

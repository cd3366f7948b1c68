import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { applyLedgerEntry } from '../../src/credits/credit-ledger.js';

/**
 * Regression: with metering on, an upstream that keeps its response open after `[DONE]` held the
 * client's answer open. The answer's end waits for the settlement (deferResponseEnd), and the
 * settlement ran only after the upstream body ended: at the upstream's idle timeout. The Responses,
 * Messages and Gemini streams did not even write their final events before it. Now the body is
 * given a short grace to end by itself after `[DONE]`, then dropped; the settlement runs and the
 * answer ends, charged once what the upstream reported.
 */
const IDLE_MS = 30_000;
/** Far below the idle timeout and above anything the grace could add on a loaded machine. */
const ENDS_WITHIN_MS = IDLE_MS / 3;
const PROMPT_TOKENS = 10;
const COMPLETION_TOKENS = 5;
/** 0.5 and 1.5 USD per million tokens, in nano-USD per token; no per-request price. */
const EXPECTED_NANOS = PROMPT_TOKENS * 500 + COMPLETION_TOKENS * 1500;

const chunk = (fields: object) =>
  `data: ${JSON.stringify({ id: 'u-1', object: 'chat.completion.chunk', created: 1, model: 'mock-model', ...fields })}\n\n`;
const delta = (content: object, finish: string | null = null) =>
  chunk({ choices: [{ index: 0, delta: content, finish_reason: finish }] });
const usage = { prompt_tokens: PROMPT_TOKENS, completion_tokens: COMPLETION_TOKENS, total_tokens: 15 };

const SSE = { 'content-type': 'text/event-stream' };

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  // What the upstream does after [DONE] is named by the request's text: holds the response open
  // (`hold`), cuts the connection right after it (`cut`, an upstream error after the end), or
  // ends the response in a later turn (`later`: its end a packet after [DONE]).
  upstream.answer((request) => {
    const events =
      delta({ role: 'assistant', content: '' }) +
      delta({ content: 'hello' }) +
      delta({}, 'stop') +
      chunk({ choices: [], usage });
    if (request.body.includes('later')) return { headers: SSE, body: [events, 'data: [DONE]\n\n'] };
    return {
      headers: SSE,
      body: [events + 'data: [DONE]\n\n'],
      ...(request.body.includes('cut') ? { cut: true } : { hold: true }),
    };
  });
  const url = `${upstream.url}/v1`;
  const timeouts = `{ connect_ms: 1000, first_byte_ms: 5000, idle_ms: ${IDLE_MS}, total_ms: 120000 }`;
  gateway = await startTestGateway({
    configText: `
providers:
  - { id: mock, type: openai, base_url: ${url}, timeouts: ${timeouts} }
  - { id: through, type: openai, base_url: ${url}, timeouts: ${timeouts}, options: { chat_pass_through: true } }
models:
  - id: test/chat
    endpoints: [{ provider: mock, upstream_model: mock-model, pricing: { prompt: 0.5, completion: 1.5 } }]
  - id: test/native
    endpoints: [{ provider: through, upstream_model: mock-model, pricing: { prompt: 0.5, completion: 1.5 } }]
billing:
  require_credits: true
`,
  });
  await applyLedgerEntry(gateway.testStore.store, {
    userId: gateway.userId,
    kind: 'grant',
    amount: 1_000_000_000,
    reference: 'done-ends-metered-answer',
  });
});

afterAll(async () => {
  for (const held of upstream?.held ?? []) held.end();
  await gateway?.close();
  await upstream?.close();
});

const json = { 'content-type': 'application/json' };
const SURFACES: Array<[string, (text: string, signal?: AbortSignal) => Promise<Response>, string]> = [
  [
    'chat, translated',
    (text, signal) =>
      fetch(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        signal,
        headers: { ...json, authorization: `Bearer ${gateway.apiKey}` },
        body: JSON.stringify({ model: 'test/chat', stream: true, messages: [{ role: 'user', content: text }] }),
      }),
    'data: [DONE]\n\n',
  ],
  [
    'chat, pass-through',
    (text, signal) =>
      fetch(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        signal,
        headers: { ...json, authorization: `Bearer ${gateway.apiKey}` },
        body: JSON.stringify({ model: 'test/native', stream: true, messages: [{ role: 'user', content: text }] }),
      }),
    'data: [DONE]\n\n',
  ],
  [
    'Responses',
    (text, signal) =>
      fetch(`${gateway.baseURL}/responses`, {
        method: 'POST',
        signal,
        headers: { ...json, authorization: `Bearer ${gateway.apiKey}` },
        body: JSON.stringify({ model: 'test/chat', stream: true, input: text }),
      }),
    'event: response.completed',
  ],
  [
    'Messages',
    (text, signal) =>
      fetch(`${gateway.url}/v1/messages`, {
        method: 'POST',
        signal,
        headers: { ...json, 'x-api-key': gateway.apiKey, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({
          model: 'test/chat',
          max_tokens: 10,
          stream: true,
          messages: [{ role: 'user', content: text }],
        }),
      }),
    'event: message_stop',
  ],
  [
    'Gemini',
    (text, signal) =>
      fetch(`${gateway.url}/v1beta/models/test/chat:streamGenerateContent?alt=sse`, {
        method: 'POST',
        signal,
        headers: { ...json, 'x-goog-api-key': gateway.apiKey },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }] }),
      }),
    '"finishReason":"STOP"',
  ],
];

/** The request's usage events and the ledger charges of the first, once the writer flushed (polling until `within`). */
async function chargesOf(requestId: string, within = 0): Promise<{ events: any[]; charges: number[] }> {
  const db = gateway.testStore.store.db;
  const until = Date.now() + within;
  for (;;) {
    await gateway.gateway.metering!.flush();
    const events = await db
      .selectFrom('usage_events')
      .select(['id', 'cost_nanos', 'prompt_tokens', 'completion_tokens', 'tokens_estimated', 'status'])
      .where('request_id', '=', requestId)
      .execute();
    if (events.length > 0 || Date.now() >= until) {
      const charges = events[0]
        ? await db
            .selectFrom('credit_ledger')
            .select('amount_nanos')
            .where('reference', '=', `usage:${events[0].id}`)
            .execute()
        : [];
      return { events, charges: charges.map((charge) => -Number(charge.amount_nanos)) };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Charged once, exactly what the upstream reported (its usage chunk came before [DONE]). */
function expectChargedOnce({ events, charges }: { events: any[]; charges: number[] }): void {
  expect(events).toHaveLength(1);
  expect(events[0]).toMatchObject({ prompt_tokens: PROMPT_TOKENS, completion_tokens: COMPLETION_TOKENS });
  expect(Number(events[0].tokens_estimated)).toBe(0);
  expect(Number(events[0].cost_nanos)).toBe(EXPECTED_NANOS);
  expect(charges).toEqual([EXPECTED_NANOS]);
}

describe.each(SURFACES)('metered, after the upstream [DONE] (%s)', (surface, send, last) => {
  it('an upstream holding its response open: the answer ends, charged once what the upstream reported', async () => {
    upstream.held.length = 0;
    const started = Date.now();
    const response = await send('hold');
    expect(response.status).toBe(200);
    const text = await response.text();
    const tookMs = Date.now() - started;
    expect(text).toContain('hello');
    expect(text).toContain(last);
    expect(text).not.toMatch(/event: error|"error":\s*\{/);
    expect(tookMs).toBeLessThan(ENDS_WITHIN_MS);
    // The end waited for the settlement: its charge is there as soon as the client has the answer.
    const charges = await chargesOf(response.headers.get('x-request-id')!);
    expectChargedOnce(charges);
    expect(charges.events[0].status).toBe(200);
    // The held upstream response was dropped (not left to its idle timeout).
    const held = upstream.held[0]!;
    expect(held.writableEnded).toBe(false);
    if (!held.destroyed) await new Promise((resolve) => held.once('close', resolve));
  }, 20_000);

  it('an upstream that cuts the connection right after it: charged once, as before', async () => {
    const response = await send('cut');
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('hello');
    // Chat (both paths) takes what follows [DONE] for no failure; the Responses, Messages and
    // Gemini streams report an upstream error that comes before their body's end, as they did.
    if (surface.startsWith('chat')) expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    else expect(text).toMatch(/event: response\.failed|event: error|"error":\{/);
    expectChargedOnce(await chargesOf(response.headers.get('x-request-id')!, ENDS_WITHIN_MS));
  }, 20_000);

  it('a client that leaves once it has the last event: charged once', async () => {
    upstream.held.length = 0;
    const controller = new AbortController();
    const response = await send('hold', controller.signal);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes(last)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    controller.abort();
    await reader.cancel().catch(() => {});
    expectChargedOnce(await chargesOf(response.headers.get('x-request-id')!, ENDS_WITHIN_MS));
    upstream.held[0]?.end();
  }, 20_000);
});

describe.each(SURFACES)('an upstream that ends its response a packet after [DONE] (%s)', (_surface, send, last) => {
  it('keeps its connection: the next request goes on the same one', async () => {
    const before = upstream.requests.length;
    for (let round = 0; round < 2; round++) {
      const response = await send('later');
      const text = await response.text();
      expect(text).toContain(last);
      expectChargedOnce(await chargesOf(response.headers.get('x-request-id')!));
    }
    const [first, second] = upstream.requests.slice(before);
    expect(second!.remotePort).toBe(first!.remotePort);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import {
  ANTHROPIC_STREAM,
  COMPLETION_TOKENS,
  GEMINI_EARLY,
  GEMINI_STREAM,
  GEMINI_USAGE_AFTER,
  PROMPT_TOKENS,
  RESPONSES_FAILED,
  RESPONSES_STREAM,
  SSE,
  nativeAnswer,
} from '../helpers/native-end-streams.js';
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
/** 0.5 and 1.5 USD per million tokens, in nano-USD per token; no per-request price. */
const EXPECTED_NANOS = PROMPT_TOKENS * 500 + COMPLETION_TOKENS * 1500;

const chunk = (fields: object) =>
  `data: ${JSON.stringify({ id: 'u-1', object: 'chat.completion.chunk', created: 1, model: 'mock-model', ...fields })}\n\n`;
const delta = (content: object, finish: string | null = null) =>
  chunk({ choices: [{ index: 0, delta: content, finish_reason: finish }] });
const usage = { prompt_tokens: PROMPT_TOKENS, completion_tokens: COMPLETION_TOKENS, total_tokens: 15 };

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  // What the upstream does after [DONE] is named by the request's text: holds the response open
  // (`hold`), cuts the connection right after it (`cut`, an upstream error after the end), or
  // ends the response in a later turn (`later`: its end a packet after [DONE]).
  upstream.answer((request) => {
    const native = nativeAnswer(
      request.url,
      request.json?.messages?.[0]?.content ??
        request.json?.input ??
        request.json?.contents?.[0]?.parts?.[0]?.text ??
        '',
    );
    if (native) return native;
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
  - { id: claude, type: anthropic, base_url: ${url}, api_key: a, timeouts: ${timeouts} }
  - { id: oai, type: openai, base_url: ${url}, api_key: o, timeouts: ${timeouts}, options: { responses_api: true } }
  - { id: gem, type: gemini, base_url: ${upstream.url}/v1beta, api_key: g, timeouts: ${timeouts} }
models:
  - id: test/chat
    endpoints: [{ provider: mock, upstream_model: mock-model, pricing: { prompt: 0.5, completion: 1.5 } }]
  - id: test/native
    endpoints: [{ provider: through, upstream_model: mock-model, pricing: { prompt: 0.5, completion: 1.5 } }]
  - id: test/claude
    endpoints: [{ provider: claude, upstream_model: claude-up, pricing: { prompt: 0.5, completion: 1.5 } }]
  - id: test/gpt
    endpoints: [{ provider: oai, upstream_model: gpt-up, pricing: { prompt: 0.5, completion: 1.5 } }]
  - id: test/gem
    endpoints: [{ provider: gem, upstream_model: gem-up, pricing: { prompt: 0.5, completion: 1.5 } }]
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

  it('an upstream that cuts the connection right after it: the answer is complete, charged once', async () => {
    const response = await send('cut');
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('hello');
    // What follows [DONE] is no failure of the answer on every surface (chat's choice): no error
    // event after the last one (the Responses, Messages and Gemini streams appended one).
    if (surface.startsWith('chat')) expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(text).not.toMatch(/event: response\.failed|event: error|"error":\s*\{/);
    const lastEvent = text.trimEnd().split(/\n\n/).at(-1)!;
    expect(lastEvent).toContain(last.trim());
    const charges = await chargesOf(response.headers.get('x-request-id')!, ENDS_WITHIN_MS);
    expectChargedOnce(charges);
    expect(charges.events[0].status).toBe(200);
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

const NATIVE: Array<[string, (text: string, extra?: object) => Promise<Response>, string[]]> = [
  [
    'Messages',
    (text, extra) =>
      fetch(`${gateway.url}/v1/messages`, {
        method: 'POST',
        headers: { ...json, 'x-api-key': gateway.apiKey, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({
          model: 'test/claude',
          max_tokens: 10,
          stream: true,
          messages: [{ role: 'user', content: text }],
          ...extra,
        }),
      }),
    ANTHROPIC_STREAM,
  ],
  [
    'Responses',
    (text, extra) =>
      fetch(`${gateway.baseURL}/responses`, {
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${gateway.apiKey}` },
        body: JSON.stringify({ model: 'test/gpt', stream: true, input: text, ...extra }),
      }),
    RESPONSES_STREAM,
  ],
  [
    'Gemini',
    (text, extra) =>
      fetch(`${gateway.url}/v1beta/models/test/gem:streamGenerateContent?alt=sse`, {
        method: 'POST',
        headers: { ...json, 'x-goog-api-key': gateway.apiKey },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }], ...extra }),
      }),
    GEMINI_STREAM,
  ],
];

/** Sends, reads the whole answer and says how long that took; the held upstream responses are reset first. */
async function timed(response: Promise<Response>): Promise<{ response: Response; text: string; tookMs: number }> {
  upstream.held.length = 0;
  const started = Date.now();
  const answered = await response;
  const text = await answered.text();
  return { response: answered, text, tookMs: Date.now() - started };
}

/** The held upstream response was dropped by the gateway (never ended by the upstream). */
async function heldWasDropped(): Promise<void> {
  const held = upstream.held[0]!;
  expect(held.writableEnded).toBe(false);
  if (!held.destroyed) await new Promise((resolve) => held.once('close', resolve));
}

describe.each(NATIVE)('metered native pass-through, after the upstream last event (%s)', (surface, send, stream) => {
  it('an upstream holding its response open: the answer ends with its bytes, charged once', async () => {
    const { response, text, tookMs } = await timed(send('hold'));
    expect(response.status).toBe(200);
    // The upstream's bytes, all of them (those that came with the last event too), and nothing added.
    expect(text).toBe(stream.join(''));
    expect(tookMs).toBeLessThan(ENDS_WITHIN_MS);
    const charges = await chargesOf(response.headers.get('x-request-id')!);
    expectChargedOnce(charges);
    expect(charges.events[0].status).toBe(200);
    await heldWasDropped();
  }, 20_000);

  it('with the cost asked: the final usage event carries it, and the answer ends', async () => {
    const { response, text, tookMs } = await timed(send('hold', { usage: { include: true } }));
    expect(response.status).toBe(200);
    expect(text).toContain('hello'.slice(0, 3));
    expect(text).toMatch(/"cost":/);
    expect(text).not.toMatch(/event: error|"error":\s*\{/);
    expect(tookMs).toBeLessThan(ENDS_WITHIN_MS);
    expectChargedOnce(await chargesOf(response.headers.get('x-request-id')!));
    await heldWasDropped();
  }, 20_000);

  it('an upstream that cuts the connection right after it: the answer is complete, charged once', async () => {
    const { response, text } = await timed(send('cut'));
    expect(response.status).toBe(200);
    // No error event after the last one: the answer was complete (as on chat).
    expect(text).toBe(stream.join(''));
    const charges = await chargesOf(response.headers.get('x-request-id')!, ENDS_WITHIN_MS);
    expectChargedOnce(charges);
    expect(charges.events[0].status).toBe(200);
  }, 20_000);

  it(`an upstream that ends its response a packet after it keeps its connection (${surface})`, async () => {
    const before = upstream.requests.length;
    for (let round = 0; round < 2; round++) {
      const { text } = await timed(send('later'));
      expect(text).toBe(stream.join(''));
    }
    const [first, second] = upstream.requests.slice(before);
    expect(second!.remotePort).toBe(first!.remotePort);
  });
});

describe('metered native pass-through, Gemini (no end marker)', () => {
  const send = NATIVE[2]![1];

  it('the usage in a chunk after the finish reason still reaches the client and is charged', async () => {
    const { response, text, tookMs } = await timed(send('usage-after hold'));
    expect(text).toBe(GEMINI_USAGE_AFTER.join(''));
    expect(tookMs).toBeLessThan(ENDS_WITHIN_MS);
    expectChargedOnce(await chargesOf(response.headers.get('x-request-id')!));
    await heldWasDropped();
  }, 20_000);

  it('a finish reason named before the text does not end the answer', async () => {
    const { response, text, tookMs } = await timed(send('early hold'));
    expect(text).toBe(GEMINI_EARLY.join(''));
    expect(tookMs).toBeLessThan(ENDS_WITHIN_MS);
    expectChargedOnce(await chargesOf(response.headers.get('x-request-id')!));
    await heldWasDropped();
  }, 20_000);
});

describe('metered native pass-through, Responses', () => {
  it('response.failed held open: the answer ends, recorded as the upstream error, charged once', async () => {
    const { response, text, tookMs } = await timed(NATIVE[1]![1]('failed hold'));
    expect(text).toBe(RESPONSES_FAILED.join(''));
    expect(tookMs).toBeLessThan(ENDS_WITHIN_MS);
    const charges = await chargesOf(response.headers.get('x-request-id')!);
    expectChargedOnce(charges);
    expect(charges.events[0].status).toBe(502);
    await heldWasDropped();
  }, 20_000);
});

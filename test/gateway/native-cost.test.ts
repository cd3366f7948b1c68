import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { startProtocolFakes, type FakeRoute, type ProtocolFakes } from '../helpers/protocol-fakes.js';
import type { UpstreamAnswer } from '../helpers/fake-upstream.js';

/**
 * Native pass-through with `usage: {include: true}`: the field is not forwarded, a whole answer
 * gets the cost in its own usage object, and a stream's final usage event carries it (the other
 * events unchanged); the figure is the request's usage event cost to the nano-USD.
 */
const sse = (events: Array<[string, unknown]>) =>
  events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join('');

const ANTHROPIC_EVENTS: Array<[string, any]> = [
  [
    'message_start',
    {
      type: 'message_start',
      message: {
        id: 'msg_up',
        type: 'message',
        role: 'assistant',
        model: 'claude-up',
        content: [],
        usage: { input_tokens: 100, output_tokens: 1 },
      },
    },
  ],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } }],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 20 } }],
  ['message_stop', { type: 'message_stop' }],
];

const RESPONSES_EVENTS: Array<[string, any]> = [
  ['response.created', { type: 'response.created', sequence_number: 0, response: { id: 'r', status: 'in_progress' } }],
  ['response.output_text.delta', { type: 'response.output_text.delta', sequence_number: 1, item_id: 'm', delta: 'Hi' }],
  [
    'response.completed',
    {
      type: 'response.completed',
      sequence_number: 2,
      response: { id: 'r', status: 'completed', usage: { input_tokens: 50, output_tokens: 30, total_tokens: 80 } },
    },
  ],
];

const GEMINI_CHUNKS = [
  {
    candidates: [{ content: { role: 'model', parts: [{ text: 'Hel' }] } }],
    usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 1, totalTokenCount: 13 },
  },
  {
    candidates: [{ content: { role: 'model', parts: [{ text: 'lo' }] }, finishReason: 'STOP' }],
    usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 4, totalTokenCount: 16 },
  },
];
const GEMINI_STREAM = GEMINI_CHUNKS.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join('');

/** The events of an SSE text as [event name, parsed data]. */
function parseSse(text: string): Array<[string | null, any]> {
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split(/\r?\n/);
      const name = lines.find((line) => line.startsWith('event: '))?.slice(7) ?? null;
      const data = lines
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      return [name, JSON.parse(data)];
    });
}

let next: UpstreamAnswer | null = null;
const answerNext: FakeRoute = () => next ?? undefined;
let fakes: ProtocolFakes;
let gateway: TestGateway;

beforeAll(async () => {
  fakes = await startProtocolFakes([answerNext]);
  const timeouts = '{ connect_ms: 1000, first_byte_ms: 3000, idle_ms: 3000, total_ms: 8000 }';
  gateway = await startTestGateway({
    configText: `
providers:
  - { id: claude, name: Anthropic, type: anthropic, base_url: ${fakes.url}/v1, api_key: a, timeouts: ${timeouts} }
  - { id: oai, name: OpenAI, type: openai, base_url: ${fakes.url}/v1, api_key: o, timeouts: ${timeouts}, options: { responses_api: true } }
  - { id: gem, name: Gemini, type: gemini, base_url: ${fakes.url}/v1beta, api_key: g, timeouts: ${timeouts} }
models:
  - id: test/claude
    endpoints: [{ provider: claude, upstream_model: claude-up, pricing: { prompt: 3, completion: 15, per_request: 0.001 } }]
  - id: test/gpt
    endpoints: [{ provider: oai, upstream_model: gpt-up, pricing: { prompt: 1, completion: 2 } }]
  - id: test/gem
    endpoints: [{ provider: gem, upstream_model: gem-up, pricing: { prompt: 0.3, completion: 2.5 } }]
`,
  });
});
afterAll(async () => {
  await gateway?.close();
  await fakes?.close();
});
beforeEach(() => {
  fakes.requests.length = 0;
  next = null;
});

async function post(path: string, body: unknown) {
  return fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': gateway.apiKey, 'x-goog-api-key': gateway.apiKey },
    body: JSON.stringify(body),
  });
}

async function costNanosOf(requestId: string | null): Promise<number> {
  expect(requestId).toBeTruthy();
  for (let attempt = 0; attempt < 200; attempt++) {
    await gateway.gateway.metering!.flush();
    const event = await gateway.testStore.store.db
      .selectFrom('usage_events')
      .select('cost_nanos')
      .where('request_id', '=', requestId!)
      .executeTakeFirst();
    if (event) return Number(event.cost_nanos);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no usage event for ${requestId}`);
}

const nanos = (usd: number) => Math.round(usd * 1e9);
const ask = { usage: { include: true } };
const messagesBody = {
  model: 'test/claude',
  max_tokens: 100,
  messages: [{ role: 'user', content: 'hi' }],
  stream: true,
};

describe('cost on native pass-through', () => {
  it('Anthropic stream: message_delta carries the cost, every other event is unchanged, usage is not forwarded', async () => {
    next = { status: 200, headers: { 'content-type': 'text/event-stream' }, body: sse(ANTHROPIC_EVENTS) };
    const response = await post('/v1/messages', { ...messagesBody, ...ask });
    const events = parseSse(await response.text());
    expect(fakes.requests[0].json).not.toHaveProperty('usage');
    expect(events.map(([name]) => name)).toEqual(ANTHROPIC_EVENTS.map(([name]) => name));
    events.forEach(([name, data], index) => {
      if (name !== 'message_delta') expect(data).toEqual(ANTHROPIC_EVENTS[index][1]);
    });
    const delta = events.find(([name]) => name === 'message_delta')![1];
    expect(delta.usage.output_tokens).toBe(20);
    // 100 × 3 + 20 × 15 µUSD + $0.001 per request.
    expect(nanos(delta.usage.cost)).toBe(100 * 3000 + 20 * 15000 + 1_000_000);
    expect(delta.usage.cost_details.request_cost).toBe(0.001);
    expect(nanos(delta.usage.cost)).toBe(await costNanosOf(response.headers.get('x-request-id')));
  });

  it('Anthropic stream not asked: the bytes pass untouched', async () => {
    next = { status: 200, headers: { 'content-type': 'text/event-stream' }, body: sse(ANTHROPIC_EVENTS) };
    expect(await (await post('/v1/messages', messagesBody)).text()).toBe(sse(ANTHROPIC_EVENTS));
  });

  it('Anthropic whole answer: usage gets the cost beside its own fields', async () => {
    const answer = {
      id: 'msg_up',
      type: 'message',
      role: 'assistant',
      model: 'claude-up',
      content: [{ type: 'text', text: 'Hello' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 7, output_tokens: 3 },
    };
    next = { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(answer) };
    const response = await post('/v1/messages', { ...messagesBody, stream: false, ...ask });
    const body = (await response.json()) as any;
    expect(body.usage).toMatchObject({ input_tokens: 7, output_tokens: 3 });
    expect(nanos(body.usage.cost)).toBe(7 * 3000 + 3 * 15000 + 1_000_000);
    expect(nanos(body.usage.cost)).toBe(await costNanosOf(response.headers.get('x-request-id')));
  });

  it('Responses stream: response.completed carries the cost', async () => {
    next = { status: 200, headers: { 'content-type': 'text/event-stream' }, body: sse(RESPONSES_EVENTS) };
    const response = await post('/v1/responses', { model: 'test/gpt', input: 'hi', stream: true, ...ask });
    const events = parseSse(await response.text());
    expect(fakes.requests[0].json).not.toHaveProperty('usage');
    const completed = events.find(([name]) => name === 'response.completed')![1];
    expect(nanos(completed.response.usage.cost)).toBe(50 * 1000 + 30 * 2000);
    expect(nanos(completed.response.usage.cost)).toBe(await costNanosOf(response.headers.get('x-request-id')));
  });

  it("Gemini stream: the last chunk's usageMetadata carries the cost, the framing stays CRLF", async () => {
    next = { status: 200, headers: { 'content-type': 'text/event-stream' }, body: GEMINI_STREAM };
    const response = await post('/v1beta/models/test/gem:streamGenerateContent?alt=sse', {
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      ...ask,
    });
    const text = await response.text();
    expect(text).toContain('\r\n\r\n');
    expect(fakes.requests[0].json).not.toHaveProperty('usage');
    const chunks = parseSse(text).map(([, data]) => data);
    expect(chunks).toHaveLength(2);
    expect(chunks[0]).toEqual(GEMINI_CHUNKS[0]);
    const usage = chunks[1].usageMetadata;
    expect(nanos(usage.cost)).toBe(12 * 300 + 4 * 2500);
    expect(nanos(usage.cost)).toBe(await costNanosOf(response.headers.get('x-request-id')));
  });
});

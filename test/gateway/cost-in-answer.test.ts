import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { applyLedgerEntry } from '../../src/credits/credit-ledger.js';
import { AccountClient } from '../helpers/account-client.js';

/**
 * Cost in the answer (issue 27 item 2): `usage.cost` when the client asks (`usage: {include: true}`),
 * equal to the ledger's charge for that request to the nano-USD, on every surface.
 */

const PRICES = '{ prompt: 0.5, completion: 1.5, per_request: 0.0001 }';
const configText = (url: string, extra = '') => `
providers:
  - id: mock
    name: Mock AI
    type: openai
    base_url: ${url}
    api_key: upstream-secret
    timeouts: { connect_ms: 1000, first_byte_ms: 5000, idle_ms: 5000, total_ms: 20000 }
models:
  - id: test/chat
    endpoints: [{ provider: mock, upstream_model: mock-model, pricing: ${PRICES} }]
  - id: test/embed
    output_modalities: [embeddings]
    endpoints: [{ provider: mock, upstream_model: text-embedding-3-small, pricing: { prompt: 0.02, completion: 0 } }]
billing:
  require_credits: true
${extra}`;

/** The usage event and ledger charge of one request, found by the x-request-id the answer carried. */
async function chargeOf(gateway: TestGateway, requestId: string | null): Promise<{ cost: number; charged: number }> {
  expect(requestId).toBeTruthy();
  const db = gateway.testStore.store.db;
  for (let attempt = 0; attempt < 200; attempt++) {
    await gateway.gateway.metering!.flush();
    const event = await db
      .selectFrom('usage_events')
      .select(['id', 'cost_nanos'])
      .where('request_id', '=', requestId!)
      .executeTakeFirst();
    if (event) {
      const ledger = await db
        .selectFrom('credit_ledger')
        .select('amount_nanos')
        .where('reference', '=', `usage:${event.id}`)
        .executeTakeFirst();
      return { cost: Number(event.cost_nanos), charged: -Number(ledger?.amount_nanos ?? 0) };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no usage event for request ${requestId}`);
}

/** USD number in the answer → nano-USD (the figure is exact to 9 decimals). */
const nanos = (usd: unknown) => Math.round((usd as number) * 1e9);

function expectCostShape(usage: any): void {
  expect(typeof usage.cost).toBe('number');
  expect(usage.cost_details).toEqual({
    prompt_cost: expect.any(Number),
    cache_read_cost: 0,
    cache_write_cost: 0,
    completion_cost: expect.any(Number),
    request_cost: 0.0001,
  });
  const parts = Object.values(usage.cost_details as Record<string, number>).reduce((sum, part) => sum + nanos(part), 0);
  expect(parts).toBe(nanos(usage.cost));
}

/** A mock upstream sending `chunkCount` chunks and a gateway whose test user was granted 1 USD. */
async function startFunded(
  chunkCount: number,
  reference: string,
  config = configText,
): Promise<{ upstream: MockUpstream; gateway: TestGateway }> {
  const upstream = await startMockUpstream({ scenario: () => ({ chunkCount }) });
  const gateway = await startTestGateway({ configText: config(upstream.url) });
  await applyLedgerEntry(gateway.testStore.store, {
    userId: gateway.userId,
    kind: 'grant',
    amount: 1_000_000_000,
    reference,
  });
  return { upstream, gateway };
}

describe('usage.cost in the answer', () => {
  let upstream: MockUpstream;
  let gateway: TestGateway;
  let openai: OpenAI;

  beforeAll(async () => {
    ({ upstream, gateway } = await startFunded(6, 'test-grant-cost-in-answer'));
    openai = new OpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseURL, maxRetries: 0, timeout: 20_000 });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  const ask = { usage: { include: true } } as Record<string, unknown>;

  it('a whole chat answer carries usage.cost equal to the ledger charge, and x-request-id names the usage row', async () => {
    const { data, response } = await openai.chat.completions
      .create({ model: 'test/chat', messages: [{ role: 'user', content: 'hello there' }], ...ask })
      .withResponse();
    const usage = data.usage as any;
    expectCostShape(usage);
    const charge = await chargeOf(gateway, response.headers.get('x-request-id'));
    expect(charge.charged).toBeGreaterThan(0);
    expect(nanos(usage.cost)).toBe(charge.charged);
    expect(charge.cost).toBe(charge.charged);
  });

  it("the openai SDK reads usage.cost from a stream's last chunk (sent when asked, without stream_options)", async () => {
    const { data: stream, response } = await openai.chat.completions
      .create({ model: 'test/chat', messages: [{ role: 'user', content: 'hello there' }], stream: true, ...ask })
      .withResponse();
    let last: OpenAI.Chat.Completions.ChatCompletionChunk | undefined;
    for await (const chunk of stream) last = chunk;
    expect(last?.choices).toEqual([]);
    const usage = last!.usage as any;
    expectCostShape(usage);
    const charge = await chargeOf(gateway, response.headers.get('x-request-id'));
    expect(nanos(usage.cost)).toBe(charge.charged);
  });

  it('no cost when not asked: whole and streamed answers are as before', async () => {
    const whole = await openai.chat.completions.create({
      model: 'test/chat',
      messages: [{ role: 'user', content: 'hello there' }],
    });
    expect(whole.usage).toBeDefined();
    expect(whole.usage).not.toHaveProperty('cost');
    expect(whole.usage).not.toHaveProperty('cost_details');
    const stream = await openai.chat.completions.create({
      model: 'test/chat',
      messages: [{ role: 'user', content: 'hello there' }],
      stream: true,
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);
    const withUsage = await openai.chat.completions.create({
      model: 'test/chat',
      messages: [{ role: 'user', content: 'hello there' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let last: any;
    for await (const chunk of withUsage) last = chunk;
    expect(last.usage.prompt_tokens).toBeGreaterThan(0);
    expect(last.usage).not.toHaveProperty('cost');
  });

  it('usage: {include: true} is not forwarded upstream', async () => {
    upstream.requests.length = 0;
    await openai.chat.completions.create({ model: 'test/chat', messages: [{ role: 'user', content: 'hi' }], ...ask });
    const sent = upstream.requests.find((request) => request.url.endsWith('/chat/completions'));
    expect(sent?.body).toBeDefined();
    expect(sent!.body).not.toHaveProperty('usage');
  });

  it('Responses: whole and streamed (response.completed) carry usage.cost equal to the charge', async () => {
    const { data, response } = await openai.responses
      .create({ model: 'test/chat', input: 'hello there', ...ask } as any)
      .withResponse();
    const usage = (data as any).usage;
    expectCostShape(usage);
    expect(usage.input_tokens).toBeGreaterThan(0);
    expect(nanos(usage.cost)).toBe((await chargeOf(gateway, response.headers.get('x-request-id'))).charged);

    const { data: stream, response: streamed } = await openai.responses
      .create({ model: 'test/chat', input: 'hello there', stream: true, ...ask } as any)
      .withResponse();
    let completed: any;
    for await (const event of stream as any) if (event.type === 'response.completed') completed = event;
    expectCostShape(completed.response.usage);
    expect(nanos(completed.response.usage.cost)).toBe(
      (await chargeOf(gateway, streamed.headers.get('x-request-id'))).charged,
    );
  });

  it('Messages: the Anthropic SDK reads usage.cost from a whole answer and the final message_delta', async () => {
    const anthropic = new Anthropic({ apiKey: gateway.apiKey, baseURL: gateway.url, maxRetries: 0, timeout: 20_000 });
    const { data, response } = await anthropic.messages
      .create({
        model: 'test/chat',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'hello there' }],
        ...ask,
      } as any)
      .withResponse();
    const usage = (data as any).usage;
    expectCostShape(usage);
    expect(response.headers.get('x-gateway-dropped-params')).toBeNull();
    expect(nanos(usage.cost)).toBe((await chargeOf(gateway, response.headers.get('x-request-id'))).charged);

    const { data: stream, response: streamed } = await anthropic.messages
      .create({
        model: 'test/chat',
        max_tokens: 100,
        stream: true,
        messages: [{ role: 'user', content: 'hello there' }],
        ...ask,
      } as any)
      .withResponse();
    let delta: any;
    for await (const event of stream as any) if (event.type === 'message_delta') delta = event;
    expectCostShape(delta.usage);
    expect(nanos(delta.usage.cost)).toBe((await chargeOf(gateway, streamed.headers.get('x-request-id'))).charged);

    const plain = await anthropic.messages.create({
      model: 'test/chat',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hello there' }],
    });
    expect(plain.usage).not.toHaveProperty('cost');
  });

  it('Gemini API: usageMetadata carries cost in a whole answer and the last streamed chunk', async () => {
    const post = (action: string, body: unknown) =>
      fetch(`${gateway.url}/v1beta/models/test/chat:${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': gateway.apiKey },
        body: JSON.stringify(body),
      });
    const request = { contents: [{ role: 'user', parts: [{ text: 'hello there' }] }], usage: { include: true } };
    const whole = await post('generateContent', request);
    expect(whole.status).toBe(200);
    const answer = (await whole.json()) as any;
    expectCostShape(answer.usageMetadata);
    expect(nanos(answer.usageMetadata.cost)).toBe((await chargeOf(gateway, whole.headers.get('x-request-id'))).charged);

    const streamed = await post('streamGenerateContent?alt=sse', request);
    const text = await streamed.text();
    const chunks = text
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)));
    const last = chunks[chunks.length - 1];
    expectCostShape(last.usageMetadata);
    expect(nanos(last.usageMetadata.cost)).toBe(
      (await chargeOf(gateway, streamed.headers.get('x-request-id'))).charged,
    );
  });

  it('embeddings: usage.cost equal to the charge when asked, absent otherwise', async () => {
    const { data, response } = await openai.embeddings
      .create({ model: 'test/embed', input: 'the quick brown fox', ...ask } as any)
      .withResponse();
    const usage = data.usage as any;
    expect(usage.cost).toBeGreaterThan(0);
    expect(usage.cost_details.prompt_cost).toBe(usage.cost);
    expect(nanos(usage.cost)).toBe((await chargeOf(gateway, response.headers.get('x-request-id'))).charged);
    const plain = await openai.embeddings.create({ model: 'test/embed', input: 'the quick brown fox' });
    expect(plain.usage).not.toHaveProperty('cost');
  });
});

describe('server.include_cost: true', () => {
  let upstream: MockUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    ({ upstream, gateway } = await startFunded(4, 'test-grant-include-cost', (url) =>
      configText(url).replace('providers:', 'server:\n  include_cost: true\nproviders:'),
    ));
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('every answer reports its cost without being asked', async () => {
    const openai = new OpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseURL, maxRetries: 0, timeout: 20_000 });
    const { data, response } = await openai.chat.completions
      .create({ model: 'test/chat', messages: [{ role: 'user', content: 'hello there' }] })
      .withResponse();
    expectCostShape(data.usage);
    expect(nanos((data.usage as any).cost)).toBe(
      (await chargeOf(gateway, response.headers.get('x-request-id'))).charged,
    );
  });
});

describe('a key with include_cost: true', () => {
  let upstream: MockUpstream;
  let gateway: TestGateway;
  let account: AccountClient;
  let keyId: string;
  let key: string;

  beforeAll(async () => {
    ({ upstream, gateway } = await startFunded(4, 'test-grant-key-include-cost'));
    account = await AccountClient.signIn(gateway.url, gateway.email);
    const created = await account.request('POST', '/api-account/user/api-keys', { name: 'costed', include_cost: true });
    expect(created.status).toBe(201);
    expect(created.body.include_cost).toBe(true);
    keyId = created.body.key_id;
    key = created.body.key;
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('chat: a whole answer and the last streamed chunk carry usage.cost without being asked', async () => {
    const openai = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0, timeout: 20_000 });
    const { data, response } = await openai.chat.completions
      .create({ model: 'test/chat', messages: [{ role: 'user', content: 'hello there' }] })
      .withResponse();
    expectCostShape(data.usage);
    expect(nanos((data.usage as any).cost)).toBe(
      (await chargeOf(gateway, response.headers.get('x-request-id'))).charged,
    );
    const { data: stream, response: streamed } = await openai.chat.completions
      .create({ model: 'test/chat', messages: [{ role: 'user', content: 'hello there' }], stream: true })
      .withResponse();
    let last: OpenAI.Chat.Completions.ChatCompletionChunk | undefined;
    for await (const chunk of stream) last = chunk;
    expectCostShape(last!.usage);
    expect(nanos((last!.usage as any).cost)).toBe(
      (await chargeOf(gateway, streamed.headers.get('x-request-id'))).charged,
    );
    // The test user's other key (include_cost off) answers as before.
    const plain = new OpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseURL, maxRetries: 0, timeout: 20_000 });
    const before = await plain.chat.completions.create({
      model: 'test/chat',
      messages: [{ role: 'user', content: 'hello there' }],
    });
    expect(before.usage).not.toHaveProperty('cost');
  });

  it('Messages: a whole answer and the final message_delta carry usage.cost', async () => {
    const anthropic = new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0, timeout: 20_000 });
    const { data, response } = await anthropic.messages
      .create({ model: 'test/chat', max_tokens: 100, messages: [{ role: 'user', content: 'hello there' }] })
      .withResponse();
    expectCostShape(data.usage);
    expect(nanos((data.usage as any).cost)).toBe(
      (await chargeOf(gateway, response.headers.get('x-request-id'))).charged,
    );
    const { data: stream, response: streamed } = await anthropic.messages
      .create({ model: 'test/chat', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    let delta: any;
    for await (const event of stream as any) if (event.type === 'message_delta') delta = event;
    expectCostShape(delta.usage);
    expect(nanos(delta.usage.cost)).toBe((await chargeOf(gateway, streamed.headers.get('x-request-id'))).charged);
  });

  it('turning it off (PATCH) reaches the key cache: answers are as before', async () => {
    const patched = await account.request('PATCH', `/api-account/user/api-keys/${keyId}`, { include_cost: false });
    expect(patched.status).toBe(200);
    expect(patched.body.include_cost).toBe(false);
    const openai = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0, timeout: 20_000 });
    const answer = await openai.chat.completions.create({
      model: 'test/chat',
      messages: [{ role: 'user', content: 'hello there' }],
    });
    expect(answer.usage).not.toHaveProperty('cost');
    const bad = await account.request('PATCH', `/api-account/user/api-keys/${keyId}`, { include_cost: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('invalid_request_error');
  });
});

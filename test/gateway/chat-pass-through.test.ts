import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { startProtocolFakes, type FakeRoute, type ProtocolFakes } from '../helpers/protocol-fakes.js';
import type { UpstreamAnswer } from '../helpers/fake-upstream.js';
import { usageEvents } from '../helpers/usage-events.js';
import { fixtureText } from '../helpers/fixtures.js';
import { openApiErrors } from '../helpers/openapi-conformance.js';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';

/**
 * Chat completions on an endpoint that passes chat through: the client's body goes upstream with
 * the model changed (and include_usage asked for metering), the upstream's bytes come back as they
 * are, and the usage chunk is charged once. A client that did not ask for usage does not see it.
 */
const STREAM = fixtureText('openai', 'chat.stream.text.include-usage.sse');
const EVENTS = STREAM.split('\n\n').filter((event) => event !== '');
const USAGE_EVENT = EVENTS.find((event) => event.includes('"choices":[]'))!;
/** The fixture broken off after its first words: no finish, no usage, no [DONE]. */
const CUT = EVENTS.slice(0, 4).join('\n\n') + '\n\n';

let next: UpstreamAnswer | null = null;
const answerNext: FakeRoute = () => next ?? undefined;
let fakes: ProtocolFakes;
let slow: MockUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  fakes = await startProtocolFakes([answerNext]);
  // A long, slow OpenAI stream, for a client that leaves half-way.
  slow = await startMockUpstream({ scenario: () => ({ chunkCount: 200, chunkGapMs: 20 }) });
  gateway = await startTestGateway({
    configText: `
providers:
  - { id: oai, name: OpenAI, type: openai, base_url: ${fakes.url}/v1, api_key: oai-secret, options: { chat_pass_through: true } }
  - { id: compat, name: Compatible, type: openai, base_url: ${fakes.url}/v1 }
  - { id: slow, name: Slow, type: openai, base_url: ${slow.url}, options: { chat_pass_through: true } }
models:
  - id: test/slow
    endpoints: [{ provider: slow, upstream_model: slow-up, pricing: { prompt: 1, completion: 2 } }]
  - id: test/gpt
    endpoints: [{ provider: oai, upstream_model: gpt-4o, pricing: { prompt: 1, completion: 2 } }]
  - id: test/compat
    endpoints: [{ provider: compat, upstream_model: compat-up, pricing: { prompt: 1, completion: 2 } }]
`,
  });
});
afterAll(async () => {
  await gateway?.close();
  await fakes?.close();
  await slow?.close();
});
beforeEach(() => {
  fakes.requests.length = 0;
  next = null;
});

const streamAnswer = (body: string): UpstreamAnswer => ({
  status: 200,
  headers: { 'content-type': 'text/event-stream' },
  body,
});

async function post(body: unknown) {
  return fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` },
    body: JSON.stringify(body),
  });
}

const messages = [{ role: 'user', content: 'What is the weather?' }];

describe('chat completions on a pass-through endpoint', () => {
  it('forwards the body with the model changed (unknown fields kept) and streams the bytes back unchanged', async () => {
    next = streamAnswer(STREAM);
    const body = {
      model: 'test/gpt',
      messages,
      stream: true,
      stream_options: { include_usage: true },
      verbosity: 'low',
      provider: { allow_fallbacks: false },
    };
    const response = await post(body);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(STREAM);
    const { provider: _gatewayOnly, ...forwarded } = body;
    expect(fakes.requests[0].url).toBe('/v1/chat/completions');
    expect(fakes.requests[0].json).toEqual({ ...forwarded, model: 'gpt-4o' });
    expect(fakes.requests[0].headers.authorization).toBe('Bearer oai-secret');
  });

  it('asks upstream for usage when the client did not, meters it once, and hides the usage chunk', async () => {
    const before = (await usageEvents(gateway, 0)).length;
    next = streamAnswer(STREAM);
    const text = await (await post({ model: 'test/gpt', messages, stream: true })).text();
    expect(fakes.requests[0].json.stream_options).toEqual({ include_usage: true });
    expect(text).toBe(EVENTS.filter((event) => event !== USAGE_EVENT).join('\n\n') + '\n\n');
    const events = await usageEvents(gateway, before + 1);
    expect(events).toHaveLength(before + 1);
    expect(Number(events.at(-1)!.prompt_tokens)).toBe(14);
    expect(Number(events.at(-1)!.completion_tokens)).toBe(30);
    // 1 and 2 USD per million tokens: 1,000 and 2,000 nano-USD a token.
    expect(Number(events.at(-1)!.cost_nanos)).toBe(14 * 1000 + 30 * 2000);
  });

  it('the chunks the OpenAI SDK reads validate against OpenAI’s document (the upstream is OpenAI)', async () => {
    next = streamAnswer(STREAM);
    const client = new OpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseURL, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'test/gpt',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: unknown = null;
    for await (const chunk of stream) {
      expect(openApiErrors('CreateChatCompletionStreamResponse', chunk)).toBeNull();
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toMatch(/^I'm unable to provide real-time weather updates/);
    expect(usage).toMatchObject({ prompt_tokens: 14, completion_tokens: 30 });
  });

  it('asked for the cost, the usage chunk is sent (even unasked) and carries what was charged', async () => {
    const before = (await usageEvents(gateway, 0)).length;
    next = streamAnswer(STREAM);
    const text = await (await post({ model: 'test/gpt', messages, stream: true, usage: { include: true } })).text();
    expect(fakes.requests[0].json.usage).toBeUndefined();
    const usageChunk = text
      .split('\n\n')
      .map((event) => event.slice('data: '.length))
      .filter((data) => data.includes('"choices":[]'))
      .map((data) => JSON.parse(data));
    expect(usageChunk).toHaveLength(1);
    const events = await usageEvents(gateway, before + 1);
    expect(usageChunk[0].usage.cost).toBe(Number(events.at(-1)!.cost_nanos) / 1e9);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('a stream cut mid-way ends with an error event and is charged the estimate, once', async () => {
    const before = (await usageEvents(gateway, 0)).length;
    next = streamAnswer(CUT);
    const text = await (await post({ model: 'test/gpt', messages, stream: true })).text();
    expect(text.startsWith(CUT)).toBe(true);
    expect(text.slice(CUT.length)).toMatch(/^event: error\ndata: \{"error":\{.*"code":"upstream_stream_interrupted"/);
    const events = await usageEvents(gateway, before + 1);
    expect(events).toHaveLength(before + 1);
    expect(events.at(-1)).toMatchObject({ status: 502, error_code: 'upstream_stream_interrupted' });
    expect(Number(events.at(-1)!.prompt_tokens)).toBeGreaterThan(0);
    expect(Number(events.at(-1)!.completion_tokens)).toBeGreaterThan(0);
  });

  it('a stream cut after its usage chunk is charged what was reported, once', async () => {
    const before = (await usageEvents(gateway, 0)).length;
    next = streamAnswer(STREAM.slice(0, STREAM.indexOf('data: [DONE]')));
    await (await post({ model: 'test/gpt', messages, stream: true })).text();
    const events = await usageEvents(gateway, before + 1);
    expect(events).toHaveLength(before + 1);
    expect(Number(events.at(-1)!.prompt_tokens)).toBe(14);
    expect(Number(events.at(-1)!.completion_tokens)).toBe(30);
  });

  it('a client that leaves mid-stream is charged the estimate of what it was sent, once', async () => {
    const before = (await usageEvents(gateway, 0)).length;
    const controller = new AbortController();
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` },
      body: JSON.stringify({ model: 'test/slow', messages, stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let received = '';
    while ((received.match(/data: /g) ?? []).length < 5)
      received += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    // The upstream's own chunks (they name its model): the stream was passed through.
    expect(received).toContain('"model":"slow-up"');
    const events = await usageEvents(gateway, before + 1);
    expect(events).toHaveLength(before + 1);
    const event = events.at(-1)!;
    expect(event).toMatchObject({ client_aborted: 1, tokens_estimated: 1, model_id: 'test/slow' });
    expect(Number(event.completion_tokens)).toBeGreaterThan(0);
    expect(Number(event.cost_nanos)).toBe(Number(event.prompt_tokens) * 1000 + Number(event.completion_tokens) * 2000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await usageEvents(gateway, 0)).toHaveLength(before + 1);
  });

  it('a whole answer comes back under the gateway model name, usage from its body', async () => {
    const answer = JSON.parse(fixtureText('openai', 'chat.nonstream.text.response.json'));
    next = { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(answer) };
    const response = await post({ model: 'test/gpt', messages });
    expect(fakes.requests[0].json.stream_options).toBeUndefined();
    const completion = (await response.json()) as Record<string, unknown>;
    expect(completion).toEqual({ ...answer, model: 'test/gpt' });
    expect(openApiErrors('CreateChatCompletionResponse', completion)).toBeNull();
  });
});

it('an endpoint not marked for pass-through is read and conformed as before (the chunks name the gateway model)', async () => {
  next = streamAnswer(STREAM);
  const text = await (await post({ model: 'test/compat', messages, stream: true })).text();
  expect(text).not.toBe(STREAM);
  const first = JSON.parse(text.split('\n\n')[0].slice('data: '.length));
  expect(first.model).toBe('test/compat');
  expect(text).not.toContain('"choices":[]');
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { usageEvents } from '../helpers/usage-events.js';
import { fixtureJson, fixtureText } from '../helpers/fixtures.js';
import { bedrockEventFrame, bedrockExceptionFrame } from '../helpers/aws-event-stream-encoder.js';

/**
 * Messages on a Bedrock Anthropic model go out as InvokeModel(WithResponseStream) with the
 * client's body (Bedrock's anthropic_version, betas in the body) and come back as Anthropic's own
 * events: Bedrock's binary frames are re-framed as SSE, each event's JSON as it came. Streams are
 * recorded Anthropic events (test/fixtures/anthropic) in Bedrock's `chunk` framing
 * (`{"bytes": base64, "p": padding}`, as InvokeModelWithResponseStream sends them).
 */
// The recording leaves off the last blank line; every event the gateway writes ends with one.
const ANTHROPIC_SSE = fixtureText('anthropic', 'messages.stream.text.sse').trimEnd() + '\n\n';
const EVENTS = ANTHROPIC_SSE.split('\n\n')
  .filter((event) => event !== '')
  .map((event) => /^data: (.*)$/m.exec(event)![1]!);

function chunkFrame(data: string): Uint8Array {
  return bedrockEventFrame('chunk', { bytes: Buffer.from(data).toString('base64'), p: 'abcdefgh' });
}
const STREAM = EVENTS.map(chunkFrame);
const EVENT_STREAM = { 'content-type': 'application/vnd.amazon.eventstream' };

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway({
    configText: `
providers:
  - id: aws
    name: Amazon Bedrock
    type: bedrock
    base_url: ${upstream.url}
    api_key: bedrock-api-key
    options: { region: eu-west-1 }
    timeouts: { connect_ms: 1000, first_byte_ms: 3000, idle_ms: 3000, total_ms: 8000 }
models:
  - id: anthropic/claude-on-bedrock
    endpoints: [{ provider: aws, upstream_model: 'us.anthropic.claude-sonnet-4-20250514-v1:0', pricing: { prompt: 3, completion: 15 } }]
  - id: amazon/nova
    endpoints: [{ provider: aws, upstream_model: 'us.amazon.nova-micro-v1:0', pricing: { prompt: 1, completion: 1 } }]
`,
  });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});
beforeEach(() => {
  upstream.requests.length = 0;
});

async function post(body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': gateway.apiKey, ...headers },
    body: JSON.stringify(body),
  });
}

const body = {
  model: 'anthropic/claude-on-bedrock',
  max_tokens: 1024,
  stream: true,
  system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
  messages: [{ role: 'user', content: 'Hello' }],
  thinking: { type: 'adaptive' },
};

describe('Messages on a Bedrock Anthropic model', () => {
  it("forwards the body to InvokeModelWithResponseStream (Bedrock's version, betas in the body)", async () => {
    upstream.answer({ headers: EVENT_STREAM, body: STREAM });
    const response = await post(body, {
      'anthropic-beta': 'context-management-2025-06-27, interleaved-thinking-2025-05-14',
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(ANTHROPIC_SSE);
    const sent = upstream.requests[0]!;
    expect(sent.url).toBe(
      `/model/${encodeURIComponent('us.anthropic.claude-sonnet-4-20250514-v1:0')}/invoke-with-response-stream`,
    );
    expect(sent.headers.authorization).toBe('Bearer bedrock-api-key');
    const { model: _model, stream: _stream, ...rest } = body;
    expect(sent.json).toEqual({
      ...rest,
      anthropic_version: 'bedrock-2023-05-31',
      anthropic_beta: ['context-management-2025-06-27', 'interleaved-thinking-2025-05-14'],
    });
  });

  it('meters the usage of message_start and message_delta once', async () => {
    const before = (await usageEvents(gateway, 0)).length;
    upstream.answer({ headers: EVENT_STREAM, body: STREAM });
    await (await post(body)).text();
    const events = await usageEvents(gateway, before + 1);
    expect(events).toHaveLength(before + 1);
    expect(events.at(-1)).toMatchObject({ model_id: 'anthropic/claude-on-bedrock', status: 200 });
    const start = JSON.parse(EVENTS[0]!).message.usage;
    const delta = JSON.parse(EVENTS.find((event) => event.includes('"message_delta"'))!).usage;
    expect(Number(events.at(-1)!.prompt_tokens)).toBe(start.input_tokens);
    expect(Number(events.at(-1)!.completion_tokens)).toBe(delta.output_tokens);
  });

  it("an exception frame mid-stream ends it with Anthropic's error event, charged what was reported", async () => {
    const before = (await usageEvents(gateway, 0)).length;
    upstream.answer({
      headers: EVENT_STREAM,
      body: [...STREAM.slice(0, 3), bedrockExceptionFrame('throttlingException', 'Too many tokens')],
    });
    const text = await (await post(body)).text();
    expect(text.startsWith(ANTHROPIC_SSE.split('\n\n').slice(0, 3).join('\n\n') + '\n\n')).toBe(true);
    expect(text).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"rate_limit_error"/);
    const events = await usageEvents(gateway, before + 1);
    expect(events).toHaveLength(before + 1);
    expect(events.at(-1)!.status).not.toBe(200);
    expect(Number(events.at(-1)!.prompt_tokens)).toBe(JSON.parse(EVENTS[0]!).message.usage.input_tokens);
  });

  it('a whole answer is InvokeModel, sent back under the gateway model name', async () => {
    const answer = fixtureJson('anthropic', 'messages.nonstream.text.response.json');
    upstream.answer({ body: JSON.stringify(answer) });
    const response = await post({ ...body, stream: false });
    expect(upstream.requests[0]!.url).toMatch(/\/invoke$/);
    expect(await response.json()).toEqual({ ...answer, model: 'anthropic/claude-on-bedrock' });
  });

  it('count_tokens is the gateway estimate (Bedrock is not asked)', async () => {
    const response = await fetch(`${gateway.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': gateway.apiKey },
      body: JSON.stringify({ model: body.model, messages: body.messages }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    expect(upstream.requests).toHaveLength(0);
  });

  it('a model that is not Anthropic stays on Converse (translated)', async () => {
    upstream.answer({ body: fixtureText('bedrock', 'converse.nonstream.text.response.json') });
    const response = await post({ ...body, model: 'amazon/nova', stream: false });
    expect(response.status).toBe(200);
    expect(upstream.requests[0]!.url).toMatch(/\/converse$/);
    expect(((await response.json()) as { type: string }).type).toBe('message');
  });
});

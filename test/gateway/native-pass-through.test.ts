import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { startProtocolFakes, type FakeRoute, type ProtocolFakes } from '../helpers/protocol-fakes.js';
import type { UpstreamAnswer } from '../helpers/fake-upstream.js';
import { usageEvents } from '../helpers/usage-events.js';

/**
 * When the endpoint speaks the client's own API the client's body goes upstream with only the
 * model changed, and the upstream's stream comes back byte for byte; metering reads the usage of
 * the API's own final events, charged once.
 */
const sse = (events: Array<[string, unknown]>) =>
  events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join('');

const ANTHROPIC_STREAM = sse([
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
        stop_reason: null,
        usage: { input_tokens: 100, cache_read_input_tokens: 40, output_tokens: 1 },
      },
    },
  ],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
  ['ping', { type: 'ping' }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } }],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 20 } }],
  ['message_stop', { type: 'message_stop' }],
]);

/** The same stream broken off after its first text (no message_delta, no message_stop). */
const ANTHROPIC_CUT = ANTHROPIC_STREAM.slice(0, ANTHROPIC_STREAM.indexOf('event: content_block_stop'));

const RESPONSES_STREAM = sse([
  [
    'response.created',
    { type: 'response.created', sequence_number: 0, response: { id: 'resp_up', status: 'in_progress' } },
  ],
  [
    'response.output_text.delta',
    { type: 'response.output_text.delta', sequence_number: 1, item_id: 'msg_1', delta: 'Hi there', future_field: 1 },
  ],
  [
    'response.completed',
    {
      type: 'response.completed',
      sequence_number: 2,
      response: {
        id: 'resp_up',
        status: 'completed',
        usage: {
          input_tokens: 50,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 30,
          output_tokens_details: { reasoning_tokens: 10 },
          total_tokens: 80,
        },
      },
    },
  ],
]);

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
  - { id: claude, name: Anthropic, type: anthropic, base_url: ${fakes.url}/v1, api_key: anthropic-secret, timeouts: ${timeouts} }
  - { id: oai, name: OpenAI, type: openai, base_url: ${fakes.url}/v1, api_key: oai-secret, timeouts: ${timeouts}, options: { responses_api: true } }
models:
  - id: test/claude
    endpoints: [{ provider: claude, upstream_model: claude-up, pricing: { prompt: 3, completion: 15 } }]
  - id: test/gpt
    endpoints: [{ provider: oai, upstream_model: gpt-up, pricing: { prompt: 1, completion: 2 } }]
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

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': gateway.apiKey, ...headers },
    body: JSON.stringify(body),
  });
}

const claudeCodeBody = {
  model: 'test/claude',
  max_tokens: 32000,
  stream: true,
  system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'say hello', cache_control: { type: 'ephemeral' } }] },
    { role: 'system', content: 'The user is in /work.' },
  ],
  tools: [{ type: 'web_search_20250305', name: 'web_search' }],
  thinking: { type: 'adaptive' },
  context_management: { edits: [{ type: 'clear_thinking_20251015' }] },
  provider: { allow_fallbacks: false },
};

describe('Messages on an Anthropic endpoint', () => {
  it("forwards Claude Code's body with only the model changed, and its beta header", async () => {
    next = { status: 200, headers: { 'content-type': 'text/event-stream' }, body: ANTHROPIC_STREAM };
    const response = await post('/v1/messages', claudeCodeBody, {
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'context-management-2025-06-27',
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(ANTHROPIC_STREAM);
    expect(response.headers.get('x-gateway-dropped-params')).toBeNull();
    const upstream = fakes.requests[0];
    expect(upstream.url).toBe('/v1/messages');
    const { provider: _gatewayOnly, ...forwarded } = claudeCodeBody;
    expect(upstream.json).toEqual({ ...forwarded, model: 'claude-up' });
    expect(upstream.headers['anthropic-beta']).toBe('context-management-2025-06-27');
    expect(upstream.headers['x-api-key']).toBe('anthropic-secret');
  });

  it('charges the usage of message_start and message_delta once, cache reads included', async () => {
    const before = (await usageEvents(gateway, 0)).length;
    next = { status: 200, headers: { 'content-type': 'text/event-stream' }, body: ANTHROPIC_STREAM };
    await (await post('/v1/messages', claudeCodeBody)).text();
    const events = await usageEvents(gateway, before + 1);
    expect(events).toHaveLength(before + 1);
    const event = events.at(-1)!;
    // Anthropic's input excludes cache reads: 100 + 40 prompt tokens, 20 output.
    expect(event).toMatchObject({ model_id: 'test/claude', status: 200 });
    expect(Number(event.prompt_tokens)).toBe(140);
    expect(Number(event.completion_tokens)).toBe(20);
  });

  it('a stream cut before message_stop ends with an Anthropic error event and is charged what was reported', async () => {
    const before = (await usageEvents(gateway, 0)).length;
    next = { status: 200, headers: { 'content-type': 'text/event-stream' }, body: ANTHROPIC_CUT };
    const text = await (await post('/v1/messages', claudeCodeBody)).text();
    expect(text.startsWith(ANTHROPIC_CUT)).toBe(true);
    expect(text.slice(ANTHROPIC_CUT.length)).toMatch(
      /^event: error\ndata: \{"type":"error","error":\{"type":"api_error"/,
    );
    const events = await usageEvents(gateway, before + 1);
    expect(events).toHaveLength(before + 1);
    expect(events.at(-1)).toMatchObject({ status: 502, error_code: 'upstream_stream_interrupted' });
    expect(Number(events.at(-1)!.prompt_tokens)).toBe(140);
  });

  it('a whole answer is sent back under the gateway model name, usage from the body', async () => {
    const answer = {
      id: 'msg_up',
      type: 'message',
      role: 'assistant',
      model: 'claude-up',
      content: [{ type: 'text', text: 'Hello' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 7, output_tokens: 3 },
      container: { id: 'future-field' },
    };
    next = { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(answer) };
    const response = await post('/v1/messages', { ...claudeCodeBody, stream: false });
    expect(await response.json()).toEqual({ ...answer, model: 'test/claude' });
  });

  it("an upstream error is answered in Anthropic's envelope", async () => {
    next = {
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long' } }),
    };
    const response = await post('/v1/messages', claudeCodeBody);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });
});

describe('Responses on an endpoint that serves the Responses API', () => {
  const codexBody = {
    model: 'test/gpt',
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
    tools: [{ type: 'namespace', name: 'mcp__docs__', tools: [{ type: 'function', name: 'search', parameters: {} }] }],
    include: ['reasoning.encrypted_content'],
    store: false,
    stream: true,
    prompt_cache_key: 'session-1',
    client_metadata: { originator: 'codex_cli_rs' },
  };

  it("forwards Codex's body untouched but for the model, streams the bytes back, meters response.completed", async () => {
    const before = (await usageEvents(gateway, 0)).length;
    next = { status: 200, headers: { 'content-type': 'text/event-stream' }, body: RESPONSES_STREAM };
    const response = await fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` },
      body: JSON.stringify(codexBody),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(RESPONSES_STREAM);
    expect(fakes.requests[0].url).toBe('/v1/responses');
    expect(fakes.requests[0].json).toEqual({ ...codexBody, model: 'gpt-up' });
    expect(fakes.requests[0].headers.authorization).toBe('Bearer oai-secret');
    const events = await usageEvents(gateway, before + 1);
    expect(events).toHaveLength(before + 1);
    expect(Number(events.at(-1)!.prompt_tokens)).toBe(50);
    expect(Number(events.at(-1)!.completion_tokens)).toBe(30);
    // 1 and 2 USD per million tokens: 1,000 and 2,000 nano-USD a token.
    expect(Number(events.at(-1)!.cost_nanos)).toBe(50 * 1000 + 30 * 2000);
  });
});

it('a previous_response_id the gateway did not store is continued by the Responses endpoint that stored it', async () => {
  const answer = {
    id: 'resp_2',
    object: 'response',
    status: 'completed',
    output: [],
    usage: { input_tokens: 5, output_tokens: 1 },
  };
  next = { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(answer) };
  const response = await fetch(`${gateway.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` },
    body: JSON.stringify({ model: 'test/gpt', input: 'and then?', previous_response_id: 'resp_up' }),
  });
  expect(response.status).toBe(200);
  expect(fakes.requests[0].json).toEqual({ model: 'gpt-up', input: 'and then?', previous_response_id: 'resp_up' });
  const elsewhere = await fetch(`${gateway.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` },
    body: JSON.stringify({ model: 'test/claude', input: 'and then?', previous_response_id: 'resp_up' }),
  });
  expect(elsewhere.status).toBe(404);
  expect(((await elsewhere.json()) as any).error.code).toBe('previous_response_not_found');
});

it('a block the translation cannot read still goes to an Anthropic endpoint as it is; elsewhere it is a 400', async () => {
  const body = {
    model: 'test/claude',
    max_tokens: 100,
    messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'file_1' } }] }],
  };
  next = {
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id: 'm',
      type: 'message',
      role: 'assistant',
      model: 'claude-up',
      content: [],
      usage: { input_tokens: 1, output_tokens: 1 },
    }),
  };
  const native = await post('/v1/messages', body);
  expect(native.status).toBe(200);
  expect(fakes.requests[0].json.messages).toEqual(body.messages);
  const translated = await post('/v1/messages', { ...body, model: 'test/gpt' });
  expect(translated.status).toBe(400);
  expect(((await translated.json()) as any).error.message).toMatch(/source/);
});

describe('POST /v1/messages/count_tokens', () => {
  const countBody = { model: 'test/claude', messages: [{ role: 'user', content: 'Hello, world' }] };

  it('is counted by Anthropic on an Anthropic endpoint (?beta=true accepted), and charged nothing', async () => {
    const before = (await usageEvents(gateway, 0)).length;
    next = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"input_tokens":12}' };
    const response = await post('/v1/messages/count_tokens?beta=true', countBody, {
      'anthropic-beta': 'token-counting-2024-11-01',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ input_tokens: 12 });
    expect(fakes.requests[0].url).toBe('/v1/messages/count_tokens');
    expect(fakes.requests[0].json).toEqual({ ...countBody, model: 'claude-up' });
    expect(fakes.requests[0].headers['anthropic-beta']).toBe('token-counting-2024-11-01');
    expect(await usageEvents(gateway, 0)).toHaveLength(before);
  });

  it("is the gateway's estimate on a model of another API", async () => {
    const response = await post('/v1/messages/count_tokens', { ...countBody, model: 'test/gpt' });
    const body = (await response.json()) as { input_tokens: number };
    expect(body.input_tokens).toBeGreaterThan(3);
    expect(fakes.requests).toHaveLength(0);
  });

  it("an unknown model is a 404 in Anthropic's envelope", async () => {
    const response = await post('/v1/messages/count_tokens', { ...countBody, model: 'test/nope' });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import {
  CHAT_PROTOCOL_ROUTES,
  startProtocolFakes,
  threeProtocolConfig,
  type ProtocolFakes,
} from '../helpers/protocol-fakes.js';
import { usageEvents } from '../helpers/usage-events.js';

let fakes: ProtocolFakes;
let gateway: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  fakes = await startProtocolFakes(CHAT_PROTOCOL_ROUTES);
  gateway = await startTestGateway({ configText: threeProtocolConfig(fakes.url) });
  client = new Anthropic({ apiKey: gateway.apiKey, baseURL: gateway.url, maxRetries: 0, timeout: 10_000 });
});
afterAll(async () => {
  await gateway?.close();
  await fakes?.close();
});
beforeEach(() => {
  fakes.requests.length = 0;
});

const MODELS = [
  ['test/openai', 'openai'],
  ['test/claude', 'anthropic'],
  ['test/gemini', 'gemini'],
] as const;

const weatherTool = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

describe.each(MODELS)('POST /v1/messages on %s with @anthropic-ai/sdk', (model, protocol) => {
  it('messages.create: a text message with usage', async () => {
    const message = await client.messages.create({
      model,
      max_tokens: 100,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(message.type).toBe('message');
    expect(message.role).toBe('assistant');
    expect(message.model).toBe(model);
    expect(message.content).toEqual([{ type: 'text', text: `Hello from ${protocol}` }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ input_tokens: 11, output_tokens: 7 });
  });

  it('a tool round trip: tool_use, then tool_result', async () => {
    const first = await client.messages.create({
      model,
      max_tokens: 100,
      tools: [weatherTool],
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    });
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((block) => block.type === 'tool_use')!;
    expect(use).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } });
    const second = await client.messages.create({
      model,
      max_tokens: 100,
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: (use as { id: string }).id, content: 'rainy' }] },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'The tool said: rainy' }]);
  });

  it("messages.stream: Anthropic's event sequence, final message assembled by the SDK", async () => {
    const stream = client.messages.stream({ model, max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] });
    const types: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: `Hello from ${protocol}` }]);
    expect(final.usage.output_tokens).toBe(7);
    expect(final.stop_reason).toBe('end_turn');
    expect(types[0]).toBe('message_start');
    expect(types).toContain('content_block_start');
    expect(types).toContain('content_block_delta');
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
  });

  it('messages.stream with tools: input_json_delta assembled into the tool input', async () => {
    const stream = client.messages.stream({
      model,
      max_tokens: 100,
      tools: [weatherTool],
      messages: [{ role: 'user', content: 'Weather?' }],
    });
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content.find((block) => block.type === 'tool_use')).toMatchObject({
      name: 'get_weather',
      input: { city: 'Paris' },
    });
  });
});

describe('Anthropic envelope, auth and metering', () => {
  it('accepts the key as x-api-key (the SDK default) and as a Bearer token', async () => {
    const bearer = new Anthropic({ authToken: gateway.apiKey, apiKey: null, baseURL: gateway.url, maxRetries: 0 });
    const message = await bearer.messages.create({
      model: 'test/openai',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(message.content[0]).toMatchObject({ type: 'text' });
  });

  it("bad input is a 400 in Anthropic's error envelope", async () => {
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': gateway.apiKey, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'test/openai', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as any;
    expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(body.error.message).toMatch(/max_tokens/);
    const error = await client.messages
      .create({ model: 'test/openai', max_tokens: 10, messages: [] })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
  });

  it('a wrong key is a 401 authentication_error, an unknown model a 404 not_found_error', async () => {
    const stranger = new Anthropic({ apiKey: 'sk-gw-wrong', baseURL: gateway.url, maxRetries: 0 });
    const denied = await stranger.messages
      .create({ model: 'test/openai', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((caught) => caught);
    expect(denied).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(denied.error).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const missing = await client.messages
      .create({ model: 'test/nope', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((caught) => caught);
    expect(missing.status).toBe(404);
    expect(missing.error.error.type).toBe('not_found_error');
  });

  it('server tools are refused by name on a translated model when the client asks for strict refusals', async () => {
    const error = await client.messages
      .create(
        {
          model: 'test/openai',
          max_tokens: 10,
          tools: [{ type: 'web_search_20250305', name: 'web_search' }],
          messages: [{ role: 'user', content: 'Hi' }],
        },
        { headers: { 'x-gateway-unsupported-params': 'refuse' } },
      )
      .catch((caught) => caught);
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/web_search_20250305/);
  });

  it('usage and cost are recorded', async () => {
    const before = (await usageEvents(gateway, 0)).length;
    await client.messages.create({ model: 'test/gemini', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] });
    const event = (await usageEvents(gateway, before + 1)).at(-1)!;
    expect(event).toMatchObject({ model_id: 'test/gemini', provider_id: 'gem', status: 200 });
    // 0.5 and 1 USD per million tokens: 500 and 1,000 nano-USD a token.
    expect(Number(event.cost_nanos)).toBe(11 * 500 + 7 * 1000);
  });
});

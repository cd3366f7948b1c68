import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText, tool, stepCountIs } from 'ai';
import { z } from 'zod';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import {
  CHAT_PROTOCOL_ROUTES,
  TOOL_ARGUMENTS,
  startProtocolFakes,
  threeProtocolConfig,
  type ProtocolFakes,
} from '../helpers/protocol-fakes.js';
import { openApiErrors } from '../helpers/openapi-conformance.js';
import { usageEvents } from '../helpers/usage-events.js';

let fakes: ProtocolFakes;
let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  fakes = await startProtocolFakes(CHAT_PROTOCOL_ROUTES);
  gateway = await startTestGateway({ configText: threeProtocolConfig(fakes.url) });
  client = new OpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseURL, maxRetries: 0, timeout: 10_000 });
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
  type: 'function' as const,
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

describe.each(MODELS)('POST /v1/responses on %s with the openai SDK', (model, protocol) => {
  it('a whole response: output message, output_text, usage; conforms to the Response schema; GET returns it', async () => {
    const response = await client.responses.create({ model, input: 'Hi', instructions: 'Be brief.' });
    expect(openApiErrors('Response', response)).toBeNull();
    expect(response.object).toBe('response');
    expect(response.status).toBe('completed');
    expect(response.model).toBe(model);
    expect(response.output_text).toBe(`Hello from ${protocol}`);
    expect(response.usage).toMatchObject({ input_tokens: 11, output_tokens: 7, total_tokens: 18 });
    const fetched = await client.responses.retrieve(response.id);
    expect(fetched.id).toBe(response.id);
    expect(fetched.output_text).toBe(`Hello from ${protocol}`);
  });

  it('streamed: the documented event sequence, every event conforming to the schema', async () => {
    const stream = await client.responses.create({ model, input: 'Hi', stream: true });
    const events = [];
    for await (const event of stream) events.push(event);
    for (const event of events) expect(openApiErrors('ResponseStreamEvent', event)).toBeNull();
    const types = events.map((event) => event.type);
    expect(types.slice(0, 4)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(types).toContain('response.output_text.delta');
    expect(types.slice(-4)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const text = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('');
    expect(text).toBe(`Hello from ${protocol}`);
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(completed.response.usage?.output_tokens).toBe(7);
  });

  it('a function-tool round trip through previous_response_id', async () => {
    const first = await client.responses.create({ model, input: 'Weather in Paris?', tools: [weatherTool] });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: TOOL_ARGUMENTS });
    const second = await client.responses.create({
      model,
      previous_response_id: first.id,
      tools: [weatherTool],
      input: [{ type: 'function_call_output', call_id: (call as { call_id: string }).call_id, output: 'sunny, 21 C' }],
    });
    expect(second.output_text).toBe('The tool said: sunny, 21 C');
    expect(second.previous_response_id).toBe(first.id);
    // The second upstream request carried the whole conversation: the question, the call and its output.
    expect(JSON.stringify(fakes.requests.at(-1)!.json)).toContain('Weather in Paris?');
  });

  it('a streamed function call: output_item.added, arguments deltas, arguments.done', async () => {
    const stream = await client.responses.create({ model, input: 'Weather?', tools: [weatherTool], stream: true });
    const events = [];
    for await (const event of stream) events.push(event);
    for (const event of events) expect(openApiErrors('ResponseStreamEvent', event)).toBeNull();
    const done = events.find((event) => event.type === 'response.function_call_arguments.done') as {
      arguments: string;
      name: string;
    };
    expect(done).toMatchObject({ arguments: TOOL_ARGUMENTS, name: 'get_weather' });
    expect(events.at(-1)!.type).toBe('response.completed');
  });
});

describe('Responses specifics', () => {
  it('text.format json_schema reaches the provider as structured output', async () => {
    for (const model of ['test/openai', 'test/gemini']) {
      const response = await client.responses.create({
        model,
        input: 'The answer?',
        text: {
          format: {
            type: 'json_schema',
            name: 'answer',
            schema: { type: 'object', properties: { answer: { type: 'number' } } },
          },
        },
      });
      expect(JSON.parse(response.output_text)).toEqual({ answer: 42 });
    }
    expect(fakes.requests[0].json.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'answer' },
    });
  });

  it('built-in tools other than web_search are a 400 naming them under strict refusals', async () => {
    const error = await client.responses
      .create(
        { model: 'test/openai', input: 'x', tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] },
        { headers: { 'x-gateway-unsupported-params': 'refuse' } },
      )
      .catch((caught) => caught);
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/code_interpreter/);
    expect(error.error.param).toBe('tools[0].type');
    expect(fakes.requests).toHaveLength(0);
  });

  it.each([
    [{ model: 'test/openai', input: 'x', temperature: 3 }, 'temperature'],
    [{ model: 'test/openai', input: [{ type: 'item_reference', id: 'x' }] }, 'input[0].type'],
    [{ model: 'test/openai', input: [{ role: 'robot', content: 'x' }] }, 'input[0].role'],
    [{ model: 'test/openai' }, 'input'],
  ])('bad input %j is a 400 naming %s (strict refusals)', async (body, param) => {
    const response = await fetch(`${gateway.baseURL}/responses`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${gateway.apiKey}`,
        'x-gateway-unsupported-params': 'refuse',
      },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(400);
    const envelope = (await response.json()) as any;
    expect(envelope.error.param).toBe(param);
    expect(openApiErrors('ErrorResponse', envelope)).toBeNull();
  });

  it("a key cannot continue or read another user's response", async () => {
    const mine = await client.responses.create({ model: 'test/openai', input: 'Hi' });
    const other = await startTestGateway({ configText: threeProtocolConfig(fakes.url), testStore: gateway.testStore });
    try {
      const stranger = new OpenAI({ apiKey: other.apiKey, baseURL: other.baseURL, maxRetries: 0 });
      const continued = await stranger.responses
        .create({ model: 'test/openai', input: 'more', previous_response_id: mine.id })
        .catch((caught) => caught);
      expect(continued.status).toBe(404);
      expect(continued.error.param).toBe('previous_response_id');
      const read = await stranger.responses.retrieve(mine.id).catch((caught) => caught);
      expect(read.status).toBe(404);
    } finally {
      await other.close();
    }
  });

  it('store: false keeps nothing', async () => {
    const response = await client.responses.create({ model: 'test/openai', input: 'Hi', store: false });
    const read = await client.responses.retrieve(response.id).catch((caught) => caught);
    expect(read.status).toBe(404);
  });

  it('usage and cost are recorded like chat', async () => {
    const before = (await usageEvents(gateway, 0)).length;
    await client.responses.create({ model: 'test/claude', input: 'Hi' });
    const event = (await usageEvents(gateway, before + 1)).at(-1)!;
    expect(event).toMatchObject({ model_id: 'test/claude', provider_id: 'claude', status: 200 });
    expect(Number(event.prompt_tokens)).toBe(11);
    // 3 and 15 USD per million tokens: 3,000 and 15,000 nano-USD a token.
    expect(Number(event.cost_nanos)).toBe(11 * 3000 + 7 * 15000);
  });
});

describe.each(MODELS)('Vercel AI SDK openai(id) (Responses API by default) on %s', (model, protocol) => {
  const provider = () => createOpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseURL });
  const weather = tool({
    description: 'The weather in a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => `sunny in ${city}`,
  });

  it('generateText', async () => {
    const result = await generateText({ model: provider()(model), prompt: 'Hi' });
    expect(result.text).toBe(`Hello from ${protocol}`);
    expect(fakes.requests.length).toBe(1);
  });

  it('generateText with a tool, two steps', async () => {
    const result = await generateText({
      model: provider()(model),
      prompt: 'Weather?',
      tools: { get_weather: weather },
      stopWhen: stepCountIs(3),
    });
    expect(result.steps[0].toolCalls[0]).toMatchObject({ toolName: 'get_weather', input: { city: 'Paris' } });
    expect(result.text).toBe('The tool said: sunny in Paris');
  });

  it('streamText with a tool', async () => {
    const result = streamText({
      model: provider()(model),
      prompt: 'Weather?',
      tools: { get_weather: weather },
      stopWhen: stepCountIs(3),
    });
    let text = '';
    for await (const part of result.textStream) text += part;
    expect(text).toBe('The tool said: sunny in Paris');
  });
});

describe.each(MODELS)('@openai/agents with its default (Responses) model on %s', (model, protocol) => {
  it('runs an agent with a tool to the final answer', async () => {
    const agents = await import('@openai/agents');
    agents.setDefaultOpenAIClient(new OpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseURL, maxRetries: 0 }));
    agents.setTracingDisabled(true);
    const getWeather = agents.tool({
      name: 'get_weather',
      description: 'The weather in a city',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => `cloudy in ${city}`,
    });
    const agent = new agents.Agent({ name: 'Weather', instructions: 'Answer briefly.', model, tools: [getWeather] });
    const result = await agents.run(agent, 'Weather in Paris?');
    expect(result.finalOutput).toBe('The tool said: cloudy in Paris');
    const plain = new agents.Agent({ name: 'Plain', model });
    expect((await agents.run(plain, 'Hi')).finalOutput).toBe(`Hello from ${protocol}`);
  });
});

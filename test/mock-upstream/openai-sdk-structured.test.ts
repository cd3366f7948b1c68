/**
 * The fake upstream shows every feature through the gateway with the official `openai` SDK:
 * structured output (chat.completions.parse with zod), JSON mode, forced tool calls (named and
 * required, whole and streamed) and embeddings, with the shipped example config as it is.
 */
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { zodFunction, zodResponseFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { applyLedgerEntry } from '../../src/credits/credit-ledger.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

const EXAMPLE_CONFIG = readFileSync(new URL('../../gateway.config.example.yaml', import.meta.url), 'utf8');

const CalendarEvent = z.object({
  name: z.string(),
  date: z.string(),
  participants: z.array(z.string()),
  priority: z.enum(['low', 'high']),
  attendees: z.number().int().min(2).max(10),
  location: z.object({ city: z.string(), online: z.boolean() }).nullable(),
});

const GetWeather = z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) });
const GetTime = z.object({ timezone: z.string(), offsetHours: z.number().int().min(-12).max(14) });

describe('the example config and the fake upstream, through the openai SDK', () => {
  let upstream: MockUpstream;
  let gateway: TestGateway;
  let client: OpenAI;

  beforeAll(async () => {
    upstream = await startMockUpstream();
    // The example's base_url takes the fake upstream's port from MOCK_UPSTREAM_PORT.
    gateway = await startTestGateway({
      configText: EXAMPLE_CONFIG,
      env: { MOCK_UPSTREAM_PORT: String(upstream.port) },
    });
    await applyLedgerEntry(gateway.testStore.store, {
      userId: gateway.userId,
      kind: 'grant',
      amount: 5_000_000_000,
      reference: `grant:test:${gateway.userId}`,
      description: 'test credit',
    });
    client = new OpenAI({ baseURL: gateway.baseURL, apiKey: gateway.apiKey, maxRetries: 0, timeout: 20_000 });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('chat.completions.parse with a zod schema gets a parsed object that the schema accepts', async () => {
    const completion = await client.chat.completions.parse({
      model: 'mock/chat',
      messages: [{ role: 'user', content: 'Alice and Bob meet on Friday.' }],
      response_format: zodResponseFormat(CalendarEvent, 'event'),
    });
    const parsed = completion.choices[0].message.parsed;
    expect(CalendarEvent.parse(parsed)).toEqual(parsed);
    expect(parsed?.attendees).toBeGreaterThanOrEqual(2);
    expect(parsed?.priority).toBe('low');
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('streams a structured answer whose pieces join to valid JSON', async () => {
    const stream = client.chat.completions.stream({
      model: 'mock/chat',
      messages: [{ role: 'user', content: 'An event, please.' }],
      response_format: zodResponseFormat(CalendarEvent, 'event'),
    });
    const final = await stream.finalChatCompletion();
    expect(CalendarEvent.parse(final.choices[0].message.parsed)).toBeTruthy();
  });

  it('JSON mode answers a JSON object', async () => {
    const completion = await client.chat.completions.create({
      model: 'mock/chat',
      messages: [{ role: 'user', content: 'Answer in JSON.' }],
      response_format: { type: 'json_object' },
    });
    const content = JSON.parse(completion.choices[0].message.content ?? '');
    expect(typeof content).toBe('object');
  });

  it('a named tool_choice gets a call of that tool with arguments its zod schema accepts', async () => {
    const completion = await client.chat.completions.parse({
      model: 'mock/chat',
      messages: [{ role: 'user', content: 'What time is it in Paris?' }],
      tools: [
        zodFunction({ name: 'get_weather', parameters: GetWeather }),
        zodFunction({ name: 'get_time', parameters: GetTime }),
      ],
      tool_choice: { type: 'function', function: { name: 'get_time' } },
    });
    const choice = completion.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.name).toBe('get_time');
    if (call?.type !== 'function') throw new Error('expected a function call');
    expect(GetTime.parse(call.function.parsed_arguments)).toEqual(call.function.parsed_arguments);
  });

  it('tool_choice required calls a tool, also streamed', async () => {
    const stream = client.chat.completions.stream({
      model: 'mock/chat',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: [zodFunction({ name: 'get_weather', parameters: GetWeather })],
      tool_choice: 'required',
    });
    const final = await stream.finalChatCompletion();
    const call = final.choices[0].message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('expected a function call');
    expect(call.function.name).toBe('get_weather');
    expect(GetWeather.parse(JSON.parse(call.function.arguments))).toEqual({
      city: 'city lorem ipsum',
      unit: 'celsius',
    });
  });

  it('tools with tool_choice auto still get a text answer', async () => {
    const completion = await client.chat.completions.create({
      model: 'mock/chat',
      messages: [{ role: 'user', content: 'Hello' }],
      tools: [zodFunction({ name: 'get_weather', parameters: GetWeather })],
    });
    expect(completion.choices[0].message.content).toMatch(/^lorem ipsum/);
  });

  it('embeddings work on the example config embedding model, which has no completion price', async () => {
    const answer = await client.embeddings.create({
      model: 'mock/embed',
      input: ['first text', 'second text'],
      dimensions: 16,
    });
    expect(answer.data).toHaveLength(2);
    expect(answer.data[0].embedding).toHaveLength(16);
    expect(answer.model).toBe('mock/embed');
    expect(answer.usage.prompt_tokens).toBe(4);
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toEqual(expect.arrayContaining(['mock/chat', 'mock/embed']));
  });
});

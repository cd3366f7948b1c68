import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { useProviderEndToEnd } from '../helpers/provider-end-to-end.js';
import { splitBytes } from '../helpers/byte-pieces.js';
import { chunksJsonlAsSse, fixtureBytes, fixtureJson, fixtureText } from '../helpers/fixtures.js';

// Recorded traffic of OpenAI-compatible presets (DeepSeek, Groq, Mistral), replayed byte for byte
// through the openai adapter; `.chunks.jsonl` payloads are re-framed as SSE with [DONE].

const SSE = { 'content-type': 'text/event-stream' };
const JSON_TYPE = { 'content-type': 'application/json' };

function configText(url: string): string {
  const provider = (id: string) => `
  - id: ${id}
    preset: ${id}
    base_url: ${url}/${id}/v1
    api_key: ${id}-secret
    timeouts: { connect_ms: 1000, first_byte_ms: 3000, idle_ms: 3000, total_ms: 8000 }`;
  const model = (id: string, providerId: string, upstreamModel: string) => `
  - id: ${id}
    name: ${id}
    input_modalities: [text]
    output_modalities: [text]
    endpoints:
      - provider: ${providerId}
        upstream_model: ${upstreamModel}
        pricing: { prompt: 1, completion: 2 }`;
  return `providers:${provider('deepseek')}${provider('groq')}${provider('mistral')}
models:${model('deepseek/reasoner', 'deepseek', 'deepseek-reasoner')}${model('groq/model', 'groq', 'groq-upstream')}${model('mistral/model', 'mistral', 'mistral-upstream')}
`;
}

const e2e = useProviderEndToEnd(configText);

interface Collected {
  content: string;
  reasoning: string;
  toolCalls: Map<number, { id?: string; type?: string; name: string; arguments: string }>;
  finishReasons: string[];
  usage: OpenAI.CompletionUsage | undefined;
}

async function collect(stream: AsyncIterable<OpenAI.ChatCompletionChunk>): Promise<Collected> {
  const collected: Collected = {
    content: '',
    reasoning: '',
    toolCalls: new Map(),
    finishReasons: [],
    usage: undefined,
  };
  for await (const chunk of stream) {
    if (chunk.usage) collected.usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    const delta = choice.delta as OpenAI.ChatCompletionChunk.Choice.Delta & { reasoning?: string };
    expect(typeof (delta.content ?? '')).toBe('string');
    collected.content += delta.content ?? '';
    collected.reasoning += delta.reasoning ?? '';
    for (const call of delta.tool_calls ?? []) {
      expect(typeof call.index).toBe('number');
      const entry = collected.toolCalls.get(call.index) ?? { name: '', arguments: '' };
      if (call.id) entry.id = call.id;
      if (call.type) entry.type = call.type;
      entry.name += call.function?.name ?? '';
      entry.arguments += call.function?.arguments ?? '';
      collected.toolCalls.set(call.index, entry);
    }
    if (choice.finish_reason) collected.finishReasons.push(choice.finish_reason);
  }
  return collected;
}

async function streamFixture(
  model: string,
  body: string,
  request: Partial<OpenAI.ChatCompletionCreateParamsStreaming> = {},
): Promise<Collected> {
  e2e.upstream.answer({ headers: SSE, body: splitBytes(new TextEncoder().encode(body), 301) });
  const stream = await e2e.client.chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
    ...request,
  });
  return collect(stream);
}

describe('DeepSeek fixtures', () => {
  it('stream: reasoning_content becomes `reasoning`, usage from the finish chunk, cache hits as cached_tokens', async () => {
    const request = fixtureJson<OpenAI.ChatCompletionCreateParamsStreaming>(
      'deepseek',
      'chat.stream.reasoning.request.json',
    );
    const result = await streamFixture('deepseek/reasoner', fixtureText('deepseek', 'chat.stream.reasoning.sse'), {
      messages: request.messages,
    });
    expect(result.reasoning.length).toBeGreaterThan(100);
    expect(result.content.length).toBeGreaterThan(0);
    expect(result.finishReasons).toEqual(['stop']);
    expect(result.usage).toMatchObject({
      prompt_tokens: 6,
      completion_tokens: 212,
      total_tokens: 218,
      completion_tokens_details: { reasoning_tokens: 198 },
      prompt_tokens_details: { cached_tokens: 0 },
    });
    const sent = JSON.parse(e2e.upstream.requests[0]!.body) as Record<string, unknown>;
    expect(sent).toEqual({ ...request, model: 'deepseek-reasoner' });
    expect(e2e.upstream.requests[0]!.url).toBe('/deepseek/v1/chat/completions');
  });

  it('stream: reasoning then a tool call, with cached tokens', async () => {
    const result = await streamFixture(
      'deepseek/reasoner',
      chunksJsonlAsSse(fixtureText('deepseek', 'chat.stream.reasoning-then-tool-call.chunks.jsonl')),
    );
    expect(result.reasoning.length).toBeGreaterThan(0);
    const call = result.toolCalls.get(0)!;
    expect(call.type).toBe('function');
    expect(() => JSON.parse(call.arguments)).not.toThrow();
    expect(result.finishReasons).toEqual(['tool_calls']);
    expect(result.usage).toMatchObject({
      prompt_tokens: 339,
      completion_tokens: 83,
      prompt_tokens_details: { cached_tokens: 320 },
    });
  });

  it('non-stream: message.reasoning and exact usage', async () => {
    e2e.upstream.answer({
      headers: JSON_TYPE,
      body: fixtureBytes('deepseek', 'chat.nonstream.reasoning.response.json'),
    });
    const completion = await e2e.client.chat.completions.create({
      model: 'deepseek/reasoner',
      messages: [{ role: 'user', content: 'strawberry?' }],
    });
    const message = completion.choices[0]!.message as OpenAI.ChatCompletionMessage & {
      reasoning?: string;
      reasoning_content?: string;
    };
    expect(message.reasoning).toMatch(/^We are asked/);
    expect(message.reasoning_content).toBeUndefined();
    expect(completion.usage).toMatchObject({ prompt_tokens: 18, completion_tokens: 345, total_tokens: 363 });
  });
});

describe('a broken stream from an OpenAI-compatible provider', () => {
  it('a chunk with bad JSON in the middle ends the stream with one error event, after what came before', async () => {
    const lines = fixtureText('mistral', 'chat.stream.text.chunks.jsonl')
      .split('\n')
      .filter((line) => line.trim() !== '');
    const broken = `data: ${lines[0]}\n\ndata: ${lines[1]}\n\ndata: {"id": "x", "choices": [\n\ndata: ${lines[2]}\n\ndata: [DONE]\n\n`;
    e2e.upstream.answer({ headers: SSE, body: broken });
    const response = await fetch(`${e2e.gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e2e.gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mistral/model', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    const text = await response.text();
    expect(text).toContain('"content":"Hello"');
    const errors = text.split('\n\n').filter((event) => event.startsWith('event: error'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('upstream_bad_response');
    expect(text).not.toContain('[DONE]');
  });
  it('a chunk of the wrong shape (content a number) ends the stream with one error event naming the field', async () => {
    const lines = fixtureText('mistral', 'chat.stream.text.chunks.jsonl')
      .split('\n')
      .filter((line) => line.trim() !== '');
    const bad = JSON.stringify({ id: 'x', choices: [{ index: 0, delta: { content: 5 } }] });
    const broken = `data: ${lines[0]}\n\ndata: ${lines[1]}\n\ndata: ${bad}\n\ndata: ${lines[2]}\n\ndata: [DONE]\n\n`;
    e2e.upstream.answer({ headers: SSE, body: broken });
    const response = await fetch(`${e2e.gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e2e.gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mistral/model', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('"content":"Hello"');
    const errors = text.split('\n\n').filter((event) => event.startsWith('event: error'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('upstream_bad_response');
    expect(errors[0]).toContain('/choices/0/delta/content');
    expect(text).not.toContain('[DONE]');
  });
});

describe('a whole answer of the wrong shape', () => {
  it('is a 502 upstream_bad_response in the chat envelope, naming the field', async () => {
    const bad = { id: 'x', choices: [{ index: 0, message: { content: 5 }, finish_reason: 'stop' }] };
    e2e.upstream.answer({ headers: JSON_TYPE, body: JSON.stringify(bad) });
    const response = await fetch(`${e2e.gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e2e.gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mistral/model', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('upstream_bad_response');
    expect(body.error.message).toContain('/choices/0/message/content');
  });
});

describe('Groq fixtures', () => {
  it('stream: a mid-stream `event: error` ends the stream with one error event in our envelope', async () => {
    const request = fixtureJson<OpenAI.ChatCompletionCreateParamsStreaming>(
      'groq',
      'chat.stream.mid-stream-error.request.json',
    );
    e2e.upstream.answer({ headers: SSE, body: fixtureBytes('groq', 'chat.stream.mid-stream-error.sse') });
    const response = await fetch(`${e2e.gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e2e.gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...request, model: 'groq/model' }),
    });
    const text = await response.text();
    const errors = text.split('\n\n').filter((event) => event.startsWith('event: error'));
    expect(errors).toHaveLength(1);
    expect(text).not.toContain('[DONE]');
    // Regression: the reasoning read in the same upstream write as the error used to be dropped.
    expect(text.indexOf('"reasoning":"We"')).toBeGreaterThan(-1);
    expect(text.indexOf('"reasoning":"We"')).toBeLessThan(text.indexOf('event: error'));
    const envelope = JSON.parse(errors[0]!.split('\ndata: ')[1]!) as { error: { code: string; message: string } };
    expect(envelope.error.code).toBe('tool_use_failed');
    expect(envelope.error.message).toMatch(/^Groq: Tool call validation failed/);
    expect(JSON.parse(e2e.upstream.requests[0]!.body)).toMatchObject({
      tools: request.tools,
      tool_choice: 'auto',
      n: 1,
    });
  });

  it('stream: raw <think> content passes as content, usage from x_groq', async () => {
    const request = fixtureJson<Record<string, unknown>>('groq', 'chat.stream.raw-think.request.json');
    e2e.upstream.answer({ headers: SSE, body: fixtureBytes('groq', 'chat.stream.raw-think.sse') });
    const stream = await e2e.client.chat.completions.create({
      ...(request as object),
      model: 'groq/model',
      stream: true,
      stream_options: { include_usage: true },
    } as OpenAI.ChatCompletionCreateParamsStreaming);
    const result = await collect(stream);
    expect(result.content.startsWith('<think>')).toBe(true);
    expect(result.usage).toMatchObject({ prompt_tokens: 21, completion_tokens: 988, total_tokens: 1009 });
    expect(JSON.parse(e2e.upstream.requests[0]!.body).reasoning_format).toBe('raw');
  });

  it.each([
    ['chat.stream.text.chunks.jsonl', 'stop', { prompt_tokens: 45, completion_tokens: 662, total_tokens: 707 }],
    [
      'chat.stream.tool-call.chunks.jsonl',
      'tool_calls',
      { prompt_tokens: 210, completion_tokens: 15, total_tokens: 225 },
    ],
  ])('stream %s: finish reason and usage', async (file, finish, usage) => {
    const result = await streamFixture('groq/model', chunksJsonlAsSse(fixtureText('groq', file)));
    expect(result.finishReasons).toEqual([finish]);
    expect(result.usage).toMatchObject(usage);
    if (finish === 'tool_calls')
      expect(result.toolCalls.get(0)).toEqual({ id: 'tk85n1k4m', type: 'function', name: 'weather', arguments: '{}' });
    else expect(result.content.length).toBeGreaterThan(1000);
  });

  it('non-stream tool call keeps usage', async () => {
    e2e.upstream.answer({ headers: JSON_TYPE, body: fixtureBytes('groq', 'chat.nonstream.tool-call.response.json') });
    const completion = await e2e.client.chat.completions.create({
      model: 'groq/model',
      messages: [{ role: 'user', content: 'weather' }],
    });
    expect(completion.choices[0]!.message.tool_calls).toEqual([
      { id: 'ax9fskhev', type: 'function', function: { name: 'weather', arguments: '{}' } },
    ]);
    expect(completion.usage).toMatchObject({ prompt_tokens: 218, completion_tokens: 15, total_tokens: 233 });
  });

  it('the recorded 400 tool_use_failed keeps status, code and message', async () => {
    e2e.upstream.answer({
      status: 400,
      headers: JSON_TYPE,
      body: fixtureBytes('groq', 'error.400.tool_use_failed.json'),
    });
    const error = await e2e.client.chat.completions
      .create({ model: 'groq/model', messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('tool_use_failed');
  });
});

describe('Mistral fixtures', () => {
  it('stream: Magistral thinking arrays become `reasoning`, content stays a string', async () => {
    const request = fixtureJson<OpenAI.ChatCompletionCreateParamsStreaming>(
      'mistral',
      'chat.stream.magistral-thinking.request.json',
    );
    const result = await streamFixture('mistral/model', fixtureText('mistral', 'chat.stream.magistral-thinking.sse'), {
      messages: request.messages,
    });
    expect(result.reasoning.startsWith('Okay')).toBe(true);
    expect(result.content.length).toBeGreaterThan(0);
    expect(result.content).not.toContain('thinking');
    expect(result.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 232, total_tokens: 242 });
  });

  it('stream: a whole tool call without index or type, in the finish chunk', async () => {
    const result = await streamFixture(
      'mistral/model',
      chunksJsonlAsSse(fixtureText('mistral', 'chat.stream.tool-call.chunks.jsonl')),
    );
    expect([...result.toolCalls.values()]).toEqual([
      { id: 'gSIMJiOkT', type: 'function', name: 'weather', arguments: '{"location": "San Francisco"}' },
    ]);
    expect(result.finishReasons).toEqual(['tool_calls']);
    expect(result.usage).toMatchObject({ prompt_tokens: 124, completion_tokens: 22, total_tokens: 146 });
  });

  it('stream: text with usage on the finish chunk', async () => {
    const result = await streamFixture(
      'mistral/model',
      chunksJsonlAsSse(fixtureText('mistral', 'chat.stream.text.chunks.jsonl')),
    );
    expect(result.content).toMatch(/^Hello/);
    expect(result.usage).toMatchObject({ prompt_tokens: 13, completion_tokens: 8, total_tokens: 21 });
  });

  it.each([
    ['chat.nonstream.text.response.json', 'stop', 434],
    ['chat.nonstream.tool-call.response.json', 'tool_calls', 22],
  ])('non-stream %s', async (file, finish, completionTokens) => {
    e2e.upstream.answer({ headers: JSON_TYPE, body: fixtureBytes('mistral', file) });
    const completion = await e2e.client.chat.completions.create({
      model: 'mistral/model',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(completion.choices[0]!.finish_reason).toBe(finish);
    expect(completion.usage?.completion_tokens).toBe(completionTokens);
    if (finish === 'tool_calls') expect(completion.choices[0]!.message.tool_calls?.[0]?.type).toBe('function');
  });
});

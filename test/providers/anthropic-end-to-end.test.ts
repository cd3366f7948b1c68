import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { collectStream, useProviderEndToEnd } from '../helpers/provider-end-to-end.js';
import { fixtureBytes, reframeAnthropicJsonl } from '../helpers/fixtures.js';

const SSE = { 'content-type': 'text/event-stream; charset=utf-8' };

const e2e = useProviderEndToEnd(
  (url) => `
providers:
  - id: claude
    name: Anthropic
    type: anthropic
    base_url: ${url}/v1
    api_key: anthropic-secret
    timeouts: { connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000, total_ms: 15000 }
models:
  - id: anthropic/claude-sonnet
    name: Claude Sonnet
    input_modalities: [text, image]
    output_modalities: [text]
    endpoints:
      - provider: claude
        upstream_model: claude-sonnet-4-5
        pricing: { prompt: 3, completion: 15 }
`,
  { clientTimeoutMs: 15_000 },
);

const model = 'anthropic/claude-sonnet';

describe('Anthropic through the gateway with the official openai SDK', () => {
  it('a whole answer: Messages request out, chat.completion with exact usage back', async () => {
    e2e.upstream.answer({ body: fixtureBytes('anthropic', 'messages.nonstream.text.response.json') });
    const completion = await e2e.client.chat.completions.create({
      model,
      messages: [
        { role: 'system', content: 'Be friendly.' },
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi!' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'How are you?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    });
    expect(completion.model).toBe(model);
    expect(completion.choices[0].message.content).toBe(
      "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?",
    );
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 29, total_tokens: 41 });

    const sent = e2e.upstream.requests[0];
    expect(sent.method).toBe('POST');
    expect(sent.url).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe('anthropic-secret');
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.json).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      system: [{ type: 'text', text: 'Be friendly.' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hello' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Hi!' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'How are you?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          ],
        },
      ],
    });
  });

  it('a whole tool-use answer becomes tool_calls; a clamped temperature is reported in x-gateway-warnings', async () => {
    e2e.upstream.answer({ body: fixtureBytes('anthropic', 'messages.nonstream.tool-use.response.json') });
    const { data: completion, response } = await e2e.client.chat.completions
      .create({
        model,
        temperature: 1.5,
        messages: [{ role: 'user', content: 'Weather in SF?' }],
        tools: [
          {
            type: 'function',
            function: { name: 'weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } },
          },
        ],
        tool_choice: 'required',
      })
      .withResponse();
    expect(completion.choices[0].finish_reason).toBe('tool_calls');
    expect(completion.choices[0].message.tool_calls).toEqual([
      {
        id: 'toolu_01PQjhxo3eirCdKNvCJrKc8f',
        type: 'function',
        function: { name: 'weather', arguments: '{"location":"San Francisco"}' },
      },
    ]);
    expect(response.headers.get('x-gateway-warnings')).toMatch(/temperature 1.5 .* clamped to 1/);
    expect(e2e.upstream.requests[0].json).toMatchObject({
      temperature: 1,
      tool_choice: { type: 'any' },
      tools: [{ name: 'weather' }],
    });
  });

  it('JSON mode: the forced tool answer comes back as message content', async () => {
    e2e.upstream.answer({
      body: Buffer.from(
        JSON.stringify({
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'json_response', input: { answer: 2 } }],
          stop_reason: 'tool_use',
          usage: { input_tokens: 20, output_tokens: 9 },
        }),
      ),
    });
    const completion = await e2e.client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: '1+1 as JSON' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(completion.choices[0].message.content ?? '')).toEqual({ answer: 2 });
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(e2e.upstream.requests[0].json.tool_choice).toEqual({ type: 'tool', name: 'json_response' });
  });

  it('streams text then a tool call, argument fragments and usage included', async () => {
    e2e.upstream.answer({
      headers: SSE,
      body: fixtureBytes('anthropic', 'messages.stream.text-then-tool-use.sse'),
      randomSplitSeed: 11,
    });
    const stream = await e2e.client.chat.completions.create({
      model,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    });
    let content = '';
    let argumentsText = '';
    const finishReasons: string[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      expect(chunk.model).toBe(model);
      content += chunk.choices[0]?.delta?.content ?? '';
      argumentsText += chunk.choices[0]?.delta?.tool_calls?.[0]?.function?.arguments ?? '';
      if (chunk.choices[0]?.finish_reason) finishReasons.push(chunk.choices[0].finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(content).toBe("I'll check the current weather in Paris for you.");
    expect(JSON.parse(argumentsText)).toEqual({ location: 'Paris' });
    expect(finishReasons).toEqual(['tool_calls']);
    expect(usage).toMatchObject({ prompt_tokens: 377, completion_tokens: 65, total_tokens: 442 });
    expect(e2e.upstream.requests[0].json.stream).toBe(true);
  });

  it('streams thinking as a reasoning field', async () => {
    e2e.upstream.answer({
      headers: SSE,
      body: fixtureBytes('anthropic', 'messages.stream.thinking.sse'),
      randomSplitSeed: 3,
    });
    const stream = await e2e.client.chat.completions.create({
      model,
      stream: true,
      messages: [{ role: 'user', content: 'How do I cross the street?' }],
    });
    const { reasoning, content } = await collectStream(stream);
    expect(reasoning).toMatch(/^This is a straightforward question about pedestrian safety\./);
    expect(content).toMatch(/when crossing streets\.$/);
  });

  it('streams a re-framed chunks.jsonl recording the same way', async () => {
    e2e.upstream.answer({
      headers: SSE,
      body: reframeAnthropicJsonl(
        fixtureBytes('anthropic', 'messages.stream.message-delta-input-tokens.chunks.jsonl').toString(),
      ),
      randomSplitSeed: 5,
    });
    const stream = await e2e.client.chat.completions.create({
      model,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'ping' }],
    });
    const { content, usage } = await collectStream(stream);
    expect(content).toBe('pong');
    expect(usage).toMatchObject({ prompt_tokens: 61, completion_tokens: 2 });
  });

  it.each(['error.400.invalid_request_error.json', 'error.400.prompt-too-long.issue-quote.json'])(
    'an upstream 400 (%s) reaches the client as a 400 in our envelope',
    async (fixture) => {
      e2e.upstream.answer({ status: 400, body: fixtureBytes('anthropic', fixture) });
      const error = await e2e.client.chat.completions
        .create({ model, messages: [{ role: 'user', content: 'x' }] })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      const apiError = error as InstanceType<typeof OpenAI.APIError>;
      expect(apiError.status).toBe(400);
      expect(apiError.code).toBe('invalid_request_error');
      expect(apiError.message).toContain(JSON.parse(fixtureBytes('anthropic', fixture).toString()).error.message);
    },
  );

  it('a mid-stream overloaded_error ends the stream with one error event the SDK raises', async () => {
    const text = fixtureBytes('anthropic', 'messages.stream.text.sse').toString();
    const body = Buffer.concat([
      Buffer.from(text.split('event: content_block_stop')[0]),
      fixtureBytes('anthropic', 'error.stream.overloaded_error.docs-example.sse'),
    ]);
    e2e.upstream.answer({ headers: SSE, body, randomSplitSeed: 4 });
    const stream = await e2e.client.chat.completions.create({
      model,
      stream: true,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    let content = '';
    const error = await (async () => {
      for await (const chunk of stream) content += chunk.choices[0]?.delta?.content ?? '';
    })().catch((caught: unknown) => caught);
    expect(content).toBe('Hello there!');
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toMatch(/Overloaded/);
  });

  it('a stream that stops before message_stop is reported, never silently truncated', async () => {
    const text = fixtureBytes('anthropic', 'messages.stream.text.sse').toString();
    e2e.upstream.answer({ headers: SSE, body: Buffer.from(text.slice(0, text.indexOf('event: message_delta'))) });
    const stream = await e2e.client.chat.completions.create({
      model,
      stream: true,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const error = await (async () => {
      for await (const _chunk of stream) void _chunk;
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/closed the stream before the answer was complete/);
  });
});

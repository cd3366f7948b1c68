import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { collectStream, useProviderEndToEnd } from '../helpers/provider-end-to-end.js';
import { splitBytes } from '../helpers/byte-pieces.js';
import { fixtureBytes } from '../helpers/fixtures.js';

// Ollama's native API (`type: ollama`, NDJSON) and its OpenAI-compatible /v1 (the `ollama` preset).

const NDJSON = { 'content-type': 'application/x-ndjson' };
const JSON_TYPE = { 'content-type': 'application/json' };

const e2e = useProviderEndToEnd(
  (url) => `
providers:
  - id: local-ollama
    type: ollama
    base_url: ${url}
    timeouts: { connect_ms: 1000, first_byte_ms: 3000, idle_ms: 3000, total_ms: 8000 }
  - id: ollama
    base_url: ${url}/v1
models:
  - id: ollama/llama3.2
    name: Llama 3.2
    input_modalities: [text]
    output_modalities: [text]
    endpoints:
      - provider: local-ollama
        upstream_model: llama3.2
  - id: ollama/gpt-oss
    name: gpt-oss via Ollama /v1
    input_modalities: [text]
    output_modalities: [text]
    endpoints:
      - provider: ollama
        upstream_model: gpt-oss:20b
`,
);

describe('Ollama native API through the gateway', () => {
  it('stream: NDJSON lines become chunks, counts become the usage chunk', async () => {
    e2e.upstream.answer({
      headers: NDJSON,
      body: splitBytes(fixtureBytes('ollama', 'api-chat.stream.docs-example.ndjson'), 17),
    });
    const stream = await e2e.client.chat.completions.create({
      model: 'ollama/llama3.2',
      messages: [{ role: 'user', content: 'Why is the sky blue?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const { content, finishReasons, usage } = await collectStream(stream);
    expect(content).toBe('The');
    expect(finishReasons).toEqual(['stop']);
    expect(usage).toEqual({ prompt_tokens: 26, completion_tokens: 282, total_tokens: 308 });
    expect(e2e.upstream.requests[0]!.url).toBe('/api/chat');
    expect(JSON.parse(e2e.upstream.requests[0]!.body)).toEqual({
      model: 'llama3.2',
      messages: [{ role: 'user', content: 'Why is the sky blue?' }],
      stream: true,
    });
  });

  it('stream with a tool call: the SDK assembles it with a synthesized id', async () => {
    e2e.upstream.answer({
      headers: NDJSON,
      body: fixtureBytes('ollama', 'api-chat.stream.tool-call.docs-example.ndjson'),
    });
    const final = await e2e.client.chat.completions
      .stream({
        model: 'ollama/llama3.2',
        messages: [{ role: 'user', content: 'Weather in Tokyo?' }],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
      })
      .finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(final.choices[0]!.message.tool_calls?.[0]).toMatchObject({
      type: 'function',
      function: { name: 'get_weather', arguments: '{"city":"Tokyo"}' },
    });
    expect(final.choices[0]!.message.tool_calls?.[0]?.id).toMatch(/^call_/);
  });

  it('non-stream tool call with exact counts', async () => {
    e2e.upstream.answer({
      headers: JSON_TYPE,
      body: fixtureBytes('ollama', 'api-chat.nonstream.tool-call.docs-example.json'),
    });
    const completion = await e2e.client.chat.completions.create({
      model: 'ollama/llama3.2',
      messages: [{ role: 'user', content: 'Weather in Tokyo?' }],
    });
    expect(
      (completion.choices[0]!.message.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall).function,
    ).toEqual({ name: 'get_weather', arguments: '{"city":"Tokyo"}' });
    expect(completion.usage).toEqual({ prompt_tokens: 169, completion_tokens: 18, total_tokens: 187 });
  });

  it('an error line mid-stream (HTTP 200 kept) ends the stream with one error event', async () => {
    e2e.upstream.answer({
      headers: NDJSON,
      body: fixtureBytes('ollama', 'api-generate.stream.mid-stream-error.docs-example.ndjson'),
    });
    const response = await fetch(`${e2e.gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e2e.gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'ollama/llama3.2', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    const text = await response.text();
    expect(text).toContain('"content":" Yes"');
    const errors = text.split('\n\n').filter((event) => event.startsWith('event: error'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('an error was encountered while running the model');
    expect(text).not.toContain('[DONE]');
  });

  it('the documented error body becomes our envelope', async () => {
    e2e.upstream.answer({ status: 500, headers: JSON_TYPE, body: fixtureBytes('ollama', 'error.docs-example.json') });
    const error = await e2e.client.chat.completions
      .create({ model: 'ollama/llama3.2', messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain(
      'the model failed to generate a response',
    );
  });

  it('text from the /api/generate-shaped stream reads the same way', async () => {
    e2e.upstream.answer({ headers: NDJSON, body: fixtureBytes('ollama', 'api-generate.stream.docs-example.ndjson') });
    const stream = await e2e.client.chat.completions.create({
      model: 'ollama/llama3.2',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe("That's a fantastic question!");
  });
});

describe('Ollama OpenAI-compatible /v1 (the ollama preset)', () => {
  it('message.reasoning passes through with exact usage', async () => {
    e2e.upstream.answer({
      headers: JSON_TYPE,
      body: fixtureBytes('ollama', 'openai-compat.chat.nonstream.response.json'),
    });
    const completion = await e2e.client.chat.completions.create({
      model: 'ollama/gpt-oss',
      messages: [{ role: 'user', content: 'What is the capital of France?' }],
    });
    const message = completion.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning?: string };
    expect(message.content).toBe('Paris.');
    expect(message.reasoning).toMatch(/^We need to answer question/);
    expect(completion.usage).toEqual({ prompt_tokens: 134, completion_tokens: 122, total_tokens: 256 });
    expect(e2e.upstream.requests[0]!.url).toBe('/v1/chat/completions');
  });
});

import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import {
  assembleChunks,
  collectStream,
  useProviderEndToEnd,
  type StreamChunk,
} from '../helpers/provider-end-to-end.js';
import { splitBytes } from '../helpers/byte-pieces.js';
import { chunksJsonlAsSse, fixtureBytes, fixtureJson, fixtureText, sseDataPayloads } from '../helpers/fixtures.js';

// Azure OpenAI speaks OpenAI's wire format at deployment URLs; the recorded OpenAI traffic is
// replayed through a fake Azure resource that checks the URL, api-version and api-key.

const SSE = { 'content-type': 'text/event-stream' };
const JSON_TYPE = { 'content-type': 'application/json' };

function configText(url: string): string {
  return `
providers:
  - id: azure
    name: Azure OpenAI
    type: azure-openai
    base_url: ${url}
    api_key: azure-secret
    timeouts: { connect_ms: 1000, first_byte_ms: 3000, idle_ms: 3000, total_ms: 8000 }
  - id: azure-preview
    name: Azure OpenAI preview
    type: azure-openai
    base_url: ${url}/openai
    api_key: azure-secret-2
    options: { api_version: 2025-04-01-preview }
  - id: azure-v1
    name: Azure OpenAI v1
    type: azure-openai
    base_url: ${url}
    api_key: azure-secret-3
    options: { api_version: v1 }
models:
  - id: azure/gpt-4o
    name: GPT-4o on Azure
    input_modalities: [text]
    output_modalities: [text]
    endpoints:
      - provider: azure
        upstream_model: gpt-4o-prod
        pricing: { prompt: 2.5, completion: 10 }
  - id: azure/gpt-4o-preview
    name: GPT-4o on Azure (preview API)
    input_modalities: [text]
    output_modalities: [text]
    endpoints:
      - provider: azure-preview
        upstream_model: gpt-4o-preview
        pricing: { prompt: 2.5, completion: 10 }
  - id: azure/gpt-4o-v1
    name: GPT-4o on Azure (v1 API)
    input_modalities: [text]
    output_modalities: [text]
    endpoints:
      - provider: azure-v1
        upstream_model: gpt-4o-v1-deployment
        pricing: { prompt: 2.5, completion: 10 }
`;
}

const e2e = useProviderEndToEnd(configText);

/** What a client should assemble from a recorded stream: computed from the fixture itself. */
function expectedFromFixture(sse: string) {
  return assembleChunks(sseDataPayloads(sse) as StreamChunk[]);
}

async function replayStream(sse: string, request: Partial<OpenAI.ChatCompletionCreateParamsStreaming> = {}) {
  e2e.upstream.answer({ headers: SSE, body: splitBytes(new TextEncoder().encode(sse), 257) });
  const stream = await e2e.client.chat.completions.create({
    model: 'azure/gpt-4o',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
    ...request,
  });
  return collectStream(stream);
}

describe('Azure OpenAI through the gateway with the openai SDK', () => {
  it('non-stream: deployment URL, default api-version, api-key header and no bearer token', async () => {
    e2e.upstream.answer({ headers: JSON_TYPE, body: fixtureBytes('openai', 'chat.nonstream.text.response.json') });
    const completion = await e2e.client.chat.completions.create({
      model: 'azure/gpt-4o',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    const recorded = fixtureJson<OpenAI.ChatCompletion>('openai', 'chat.nonstream.text.response.json');
    expect(completion.model).toBe('azure/gpt-4o');
    expect(completion.choices[0]!.message.content).toBe(recorded.choices[0]!.message.content);
    expect(completion.usage).toEqual(recorded.usage);
    const sent = e2e.upstream.requests[0]!;
    expect(sent.url).toBe('/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21');
    expect(sent.headers['api-key']).toBe('azure-secret');
    expect(sent.headers.authorization).toBeUndefined();
    expect(JSON.parse(sent.body)).toEqual({ model: 'gpt-4o-prod', messages: [{ role: 'user', content: 'Hello' }] });
  });

  it('options.api_version picks the version; a base_url ending in /openai is not doubled', async () => {
    e2e.upstream.answer({
      headers: JSON_TYPE,
      body: fixtureBytes('openai', 'chat.nonstream.parallel-tool-calls.response.json'),
    });
    const completion = await e2e.client.chat.completions.create({
      model: 'azure/gpt-4o-preview',
      messages: [{ role: 'user', content: 'Weather?' }],
    });
    expect(completion.choices[0]!.message.tool_calls?.length).toBeGreaterThan(1);
    expect(e2e.upstream.requests[0]!.url).toBe(
      '/openai/deployments/gpt-4o-preview/chat/completions?api-version=2025-04-01-preview',
    );
    expect(e2e.upstream.requests[0]!.headers['api-key']).toBe('azure-secret-2');
  });

  it('api_version v1 uses /openai/v1 with the deployment as the model', async () => {
    e2e.upstream.answer({ headers: JSON_TYPE, body: fixtureBytes('openai', 'chat.nonstream.text.response.json') });
    await e2e.client.chat.completions.create({
      model: 'azure/gpt-4o-v1',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(e2e.upstream.requests[0]!.url).toBe('/openai/v1/chat/completions');
    expect(JSON.parse(e2e.upstream.requests[0]!.body).model).toBe('gpt-4o-v1-deployment');
  });

  it.each([
    'chat.stream.text.include-usage.sse',
    'chat.stream.finish-length.sse',
    'chat.stream.parallel-tool-calls.sse',
    'chat.stream.refusal.sse',
    'chat.stream.tool-call.sse',
  ])('stream %s: what the client assembles equals the recording', async (file) => {
    const sse = fixtureText('openai', file);
    const result = await replayStream(sse);
    expect(result).toEqual(expectedFromFixture(sse));
    expect(JSON.parse(e2e.upstream.requests[0]!.body).stream_options).toEqual({ include_usage: true });
  });

  it('stream of the re-framed include-usage chunks', async () => {
    const sse = chunksJsonlAsSse(fixtureText('openai', 'chat.stream.text.include-usage.chunks.jsonl'));
    expect(await replayStream(sse)).toEqual(expectedFromFixture(sse));
  });

  it('a tool turn then the answer turn: the recorded requests go upstream unchanged but for the deployment', async () => {
    for (const turn of ['turn1', 'turn2']) {
      e2e.upstream.requests.length = 0;
      const request = fixtureJson<OpenAI.ChatCompletionCreateParamsStreaming>(
        'openai',
        `chat.stream.tool-then-text.${turn}.request.json`,
      );
      const sse = fixtureText('openai', `chat.stream.tool-then-text.${turn}.sse`);
      const result = await replayStream(sse, { ...request, model: 'azure/gpt-4o' });
      expect(result).toEqual(expectedFromFixture(sse));
      expect(JSON.parse(e2e.upstream.requests[0]!.body)).toEqual({ ...request, model: 'gpt-4o-prod' });
    }
  });

  it('the content-filter preamble chunk Azure sends first (choices: []) is skipped', async () => {
    const preamble = `data: ${JSON.stringify({ choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: [{ prompt_index: 0, content_filter_results: { hate: { filtered: false, severity: 'safe' } } }] })}\n\n`;
    const sse = fixtureText('openai', 'chat.stream.text.include-usage.sse');
    const result = await replayStream(preamble + sse);
    expect(result).toEqual(expectedFromFixture(sse));
  });

  it.each([
    ['error.400.unsupported_parameter.json', 'max_tokens', 'unsupported_parameter'],
    ['error.400.unsupported_value.json', 'messages[0].role', 'unsupported_value'],
  ])('the recorded %s keeps status, param and code', async (file, param, code) => {
    e2e.upstream.answer({ status: 400, headers: JSON_TYPE, body: fixtureBytes('openai', file) });
    const error = await e2e.client.chat.completions
      .create({ model: 'azure/gpt-4o', messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(param);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe(code);
  });

  it('enable_search is refused with 400 before any upstream call', async () => {
    const error = await e2e.client.chat.completions
      .create({
        model: 'azure/gpt-4o',
        messages: [{ role: 'user', content: 'x' }],
        enable_search: true,
      } as OpenAI.ChatCompletionCreateParamsNonStreaming)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('enable_search');
    expect(e2e.upstream.requests).toHaveLength(0);
  });
});

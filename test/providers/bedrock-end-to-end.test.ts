import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { collectStream, useProviderEndToEnd } from '../helpers/provider-end-to-end.js';
import { splitBytes } from '../helpers/byte-pieces.js';
import type { RecordedRequest } from '../helpers/fake-upstream.js';
import { fixtureBytes, fixtureJson, fixtureText, reframeBedrockChunks } from '../helpers/fixtures.js';
import { bedrockEventFrame, bedrockExceptionFrame } from '../helpers/aws-event-stream-encoder.js';
import { signAwsRequest } from '../../src/providers/bedrock/sign-aws-request.js';

const CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session-token-1',
};
const EVENT_STREAM = { 'content-type': 'application/vnd.amazon.eventstream' };
const JSON_TYPE = { 'content-type': 'application/json' };

function configText(url: string): string {
  return `
providers:
  - id: aws
    name: Amazon Bedrock
    type: bedrock
    base_url: ${url}
    options: { region: eu-west-1, access_key_id: ${CREDENTIALS.accessKeyId}, secret_access_key: ${CREDENTIALS.secretAccessKey}, session_token: ${CREDENTIALS.sessionToken} }
    timeouts: { connect_ms: 1000, first_byte_ms: 3000, idle_ms: 3000, total_ms: 8000 }
models:
  - id: amazon/nova-micro
    name: Nova Micro
    input_modalities: [text, image]
    output_modalities: [text]
    endpoints:
      - provider: aws
        upstream_model: us.amazon.nova-micro-v1:0
        pricing: { prompt: 0.035, completion: 0.14 }
  - id: anthropic/claude-sonnet-4
    name: Claude Sonnet 4 on Bedrock
    input_modalities: [text]
    output_modalities: [text]
    endpoints:
      - provider: aws
        upstream_model: us.anthropic.claude-sonnet-4-20250514-v1:0
        pricing: { prompt: 3, completion: 15 }
`;
}

const e2e = useProviderEndToEnd(configText);

/** Re-signs the request as received, with its own x-amz-date: a match proves path, headers and body arrived as signed. */
async function expectValidSignature(request: RecordedRequest): Promise<void> {
  const authorization = String(request.headers.authorization);
  expect(authorization).toMatch(
    /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/bedrock\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/,
  );
  const signedHeaderNames = /SignedHeaders=([^,]+)/.exec(authorization)![1]!.split(';');
  expect(signedHeaderNames).toEqual(
    expect.arrayContaining(['host', 'x-amz-date', 'x-amz-content-sha256', 'x-amz-security-token', 'content-type']),
  );
  expect(request.headers['x-amz-content-sha256']).toBe(createHash('sha256').update(request.body).digest('hex'));
  expect(request.headers['x-amz-security-token']).toBe(CREDENTIALS.sessionToken);
  const amzDate = String(request.headers['x-amz-date']);
  const signingDate = new Date(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  );
  const headers: Record<string, string> = {};
  for (const name of signedHeaderNames) {
    if (name.startsWith('x-amz-') || name === 'host') continue;
    headers[name] = String(request.headers[name]);
  }
  const resigned = await signAwsRequest(
    { method: request.method, url: `${e2e.upstream.url}${request.url}`, headers, body: request.body },
    { credentials: CREDENTIALS, region: 'eu-west-1', service: 'bedrock', signingDate },
  );
  expect(resigned.authorization).toBe(authorization);
}

describe('Bedrock through the gateway with the openai SDK', () => {
  it('non-stream: signed Converse request, recorded answer, exact usage', async () => {
    e2e.upstream.answer({ headers: JSON_TYPE, body: fixtureBytes('bedrock', 'converse.nonstream.text.response.json') });
    const completion = await e2e.client.chat.completions.create({
      model: 'amazon/nova-micro',
      messages: [
        { role: 'system', content: 'Count carefully.' },
        { role: 'user', content: 'How many r in strawberry?' },
        { role: 'assistant', content: 'Let me see.' },
        { role: 'user', content: 'Go on.' },
      ],
      max_tokens: 200,
      temperature: 0.3,
    });
    expect(completion.model).toBe('amazon/nova-micro');
    expect(completion.choices[0]?.message.content).toContain('There are **3** "r"s in "strawberry."');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage).toEqual({ prompt_tokens: 22, completion_tokens: 57, total_tokens: 79 });

    const sent = e2e.upstream.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.url).toBe('/model/us.amazon.nova-micro-v1%3A0/converse');
    expect(JSON.parse(sent.body)).toEqual({
      messages: [
        { role: 'user', content: [{ text: 'How many r in strawberry?' }] },
        { role: 'assistant', content: [{ text: 'Let me see.' }] },
        { role: 'user', content: [{ text: 'Go on.' }] },
      ],
      system: [{ text: 'Count carefully.' }],
      inferenceConfig: { maxTokens: 200, temperature: 0.3 },
    });
    await expectValidSignature(sent);
  });

  it('stream: the recorded event stream, split into small writes, becomes OpenAI chunks and a usage chunk', async () => {
    e2e.upstream.answer({
      headers: EVENT_STREAM,
      body: splitBytes(fixtureBytes('bedrock', 'converse-stream.text.eventstream'), 97),
    });
    const stream = await e2e.client.chat.completions.create({
      model: 'amazon/nova-micro',
      messages: [
        { role: 'system', content: 'You are a helpful chatbot.' },
        { role: 'user', content: 'What is the capital of France?' },
      ],
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
    const { content: text, finishReasons, usage } = await collectStream(stream);
    expect(text.startsWith('The capital of France is Paris.')).toBe(true);
    expect(finishReasons).toEqual(['stop']);
    expect(usage).toEqual({ prompt_tokens: 13, completion_tokens: 82, total_tokens: 95 });
    const sent = e2e.upstream.requests[0]!;
    expect(sent.url).toBe('/model/us.amazon.nova-micro-v1%3A0/converse-stream');
    expect(sent.headers.accept).toBe('application/vnd.amazon.eventstream');
    expect(JSON.parse(sent.body)).toEqual(fixtureJson('bedrock', 'converse-stream.text.request.json'));
    await expectValidSignature(sent);
  });

  it('stream with tools: the tool call arrives whole through the SDK stream helper', async () => {
    e2e.upstream.answer({
      headers: EVENT_STREAM,
      body: splitBytes(fixtureBytes('bedrock', 'converse-stream.tool-use.eventstream'), 61),
    });
    const runner = e2e.client.chat.completions.stream({
      model: 'amazon/nova-micro',
      messages: [{ role: 'user', content: 'What is the temperature of the capital of France?' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_temperature',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ],
    });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]?.finish_reason).toBe('tool_calls');
    expect(final.choices[0]?.message.tool_calls).toEqual([
      {
        id: 'tooluse_lAG_zP8QRHmSYOwZzzaCqA',
        type: 'function',
        function: { name: 'get_temperature', arguments: '{"city":"Paris"}' },
      },
    ]);
    expect(JSON.parse(e2e.upstream.requests[0]!.body).toolConfig.tools[0].toolSpec.name).toBe('get_temperature');
  });

  it('stream with reasoning: reasoning deltas are `reasoning`, then the answer', async () => {
    e2e.upstream.answer({
      headers: EVENT_STREAM,
      body: splitBytes(fixtureBytes('bedrock', 'converse-stream.reasoning.eventstream'), 13),
    });
    const stream = await e2e.client.chat.completions.create({
      model: 'anthropic/claude-sonnet-4',
      messages: [{ role: 'user', content: 'Hello' }],
      reasoning_effort: 'low',
      stream: true,
    });
    const { reasoning, content: text } = await collectStream(stream);
    expect(reasoning.startsWith('The user has greeted me')).toBe(true);
    expect(text.length).toBeGreaterThan(0);
    const sent = JSON.parse(e2e.upstream.requests[0]!.body);
    expect(sent.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 1024 } });
    expect(e2e.upstream.requests[0]!.url).toBe('/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream');
  });

  it('stream of the re-framed SDK chunks gives the recorded text', async () => {
    e2e.upstream.answer({
      headers: EVENT_STREAM,
      body: reframeBedrockChunks(fixtureText('bedrock', 'converse-stream.text.chunks.jsonl')),
    });
    const stream = await e2e.client.chat.completions.create({
      model: 'amazon/nova-micro',
      messages: [{ role: 'user', content: 'strawberry' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(
      'Let me count the "r"s in "strawberry":\n\ns-t-**r**-a-w-b-e-**r**-**r**-y\n\nThere are **3** r\'s in "strawberry."',
    );
  });

  it('JSON mode: the forced tool answer comes back as message content', async () => {
    e2e.upstream.answer({
      headers: JSON_TYPE,
      body: JSON.stringify({
        output: {
          message: {
            role: 'assistant',
            content: [{ toolUse: { toolUseId: 't1', name: 'gateway_json_response', input: { capital: 'Paris' } } }],
          },
        },
        stopReason: 'tool_use',
        usage: { inputTokens: 30, outputTokens: 9, totalTokens: 39 },
      }),
    });
    const completion = await e2e.client.chat.completions.create({
      model: 'amazon/nova-micro',
      messages: [{ role: 'user', content: 'Capital of France as JSON' }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema: { type: 'object', properties: { capital: { type: 'string' } } } },
      },
    });
    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual({ capital: 'Paris' });
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(JSON.parse(e2e.upstream.requests[0]!.body).toolConfig.toolChoice).toEqual({
      tool: { name: 'gateway_json_response' },
    });
  });

  it('dropped parameters are named in x-gateway-warnings', async () => {
    e2e.upstream.answer({ headers: JSON_TYPE, body: fixtureBytes('bedrock', 'converse.nonstream.text.response.json') });
    const { response } = await e2e.client.chat.completions
      .create({ model: 'amazon/nova-micro', messages: [{ role: 'user', content: 'hi' }], seed: 3 })
      .withResponse();
    expect(response.headers.get('x-gateway-warnings')).toBe('seed is not supported by Amazon Bedrock and was ignored');
  });
});

describe('Bedrock failures through the gateway', () => {
  it('the recorded 400 becomes a 400 in the OpenAI envelope', async () => {
    e2e.upstream.answer({
      status: 400,
      headers: {
        ...JSON_TYPE,
        'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/',
      },
      body: fixtureBytes('bedrock', 'error.400.converse-stream.json'),
    });
    const error = await e2e.client.chat.completions
      .create({ model: 'amazon/nova-micro', messages: [{ role: 'user', content: 'hi' }], stream: true })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toEqual({
      message: 'Amazon Bedrock: The provided model identifier is invalid.',
      type: 'invalid_request_error',
      code: 'validation_exception',
      param: null,
    });
  });

  it('n > 1 is refused with 400 naming n, before any upstream call', async () => {
    const error = await e2e.client.chat.completions
      .create({ model: 'amazon/nova-micro', messages: [{ role: 'user', content: 'hi' }], n: 2 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('n');
    expect(e2e.upstream.requests).toHaveLength(0);
  });

  it.each([
    [
      'an exception frame mid-stream',
      () =>
        Buffer.concat([
          bedrockEventFrame('messageStart', { role: 'assistant' }),
          bedrockEventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hel' } }),
          bedrockExceptionFrame('modelStreamErrorException', 'The model crashed.'),
        ]),
      false,
      'model_stream_error_exception',
    ],
    [
      'a corrupted CRC',
      () => {
        const bytes = fixtureBytes('bedrock', 'converse-stream.text.eventstream').slice();
        bytes[400] ^= 0x04;
        return bytes;
      },
      false,
      'upstream_bad_response',
    ],
    [
      'a body that ends inside a frame',
      () => fixtureBytes('bedrock', 'converse-stream.text.eventstream').subarray(0, 2000),
      false,
      'upstream_bad_response',
    ],
    [
      'a connection dropped inside a frame',
      () => fixtureBytes('bedrock', 'converse-stream.text.eventstream').subarray(0, 2000),
      true,
      'upstream_connection_error',
    ],
    [
      'a connection dropped between frames, before messageStop',
      () => fixtureBytes('bedrock', 'converse-stream.text.eventstream').subarray(0, 143),
      false,
      'upstream_stream_interrupted',
    ],
  ])('%s ends the stream with one error event', async (_name, body, cut, code) => {
    e2e.upstream.answer({ headers: EVENT_STREAM, body: body(), cut });
    const response = await fetch(`${e2e.gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e2e.gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'amazon/nova-micro', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    const errorEvents = text.split('\n\n').filter((event) => event.startsWith('event: error'));
    expect(errorEvents).toHaveLength(1);
    expect(text.trimEnd().endsWith(errorEvents[0]!)).toBe(true);
    expect(text).not.toContain('[DONE]');
    const envelope = JSON.parse(errorEvents[0]!.split('\ndata: ')[1]!) as { error: { code: string; type: string } };
    expect(envelope.error.code).toMatch(code);
  });
});

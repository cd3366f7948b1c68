import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';

let upstream: MockUpstream;
let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startMockUpstream({ scenario: { chunkCount: 5 } });
  gateway = await startTestGateway({ configText: testConfigText(upstream.url) });
  client = new OpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseURL, maxRetries: 0, timeout: 10_000 });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

beforeEach(() => {
  upstream.setScenario({ chunkCount: 5 });
  upstream.requests.length = 0;
});

const valid = { model: 'test/chat', messages: [{ role: 'user', content: 'hi' }] };

async function post(body: string | object, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: JSON.parse(text) as { error: { message: string; type: string; code: string | null; param: string | null } },
  };
}

describe('request validation: every bad input is a 400 naming the parameter, and never reaches upstream', () => {
  const cases: Array<[string, object, string]> = [
    ['temperature above 2', { ...valid, temperature: 2.5 }, 'temperature'],
    ['temperature below 0', { ...valid, temperature: -0.1 }, 'temperature'],
    ['temperature as a string', { ...valid, temperature: '1' }, 'temperature'],
    ['top_p above 1', { ...valid, top_p: 1.01 }, 'top_p'],
    ['frequency_penalty below -2', { ...valid, frequency_penalty: -2.5 }, 'frequency_penalty'],
    ['presence_penalty above 2', { ...valid, presence_penalty: 3 }, 'presence_penalty'],
    ['max_tokens zero', { ...valid, max_tokens: 0 }, 'max_tokens'],
    ['max_tokens fractional', { ...valid, max_tokens: 1.5 }, 'max_tokens'],
    ['max_completion_tokens negative', { ...valid, max_completion_tokens: -1 }, 'max_completion_tokens'],
    ['n zero', { ...valid, n: 0 }, 'n'],
    ['stream as a string', { ...valid, stream: 'yes' }, 'stream'],
    ['stop with five items', { ...valid, stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
    ['seed fractional', { ...valid, seed: 1.5 }, 'seed'],
    ['logprobs as a number', { ...valid, logprobs: 1 }, 'logprobs'],
    ['top_logprobs above 20', { ...valid, logprobs: true, top_logprobs: 21 }, 'top_logprobs'],
    ['top_logprobs without logprobs', { ...valid, top_logprobs: 2 }, 'top_logprobs'],
    ['missing model', { messages: valid.messages }, 'model'],
    ['model as a number', { ...valid, model: 42 }, 'model'],
    ['missing messages', { model: 'test/chat' }, 'messages'],
    ['empty messages', { ...valid, messages: [] }, 'messages'],
    ['messages as an object', { ...valid, messages: { role: 'user' } }, 'messages'],
    ['unknown role', { ...valid, messages: [{ role: 'wizard', content: 'hi' }] }, 'messages[0].role'],
    ['missing role', { ...valid, messages: [{ content: 'hi' }] }, 'messages[0].role'],
    ['content as a number', { ...valid, messages: [{ role: 'user', content: 5 }] }, 'messages[0].content'],
    ['user message without content', { ...valid, messages: [{ role: 'user' }] }, 'messages[0].content'],
    [
      'tool message without tool_call_id',
      {
        ...valid,
        messages: [
          { role: 'user', content: 'x' },
          { role: 'tool', content: 'r' },
        ],
      },
      'messages[1].tool_call_id',
    ],
    [
      'unknown content part type',
      { ...valid, messages: [{ role: 'user', content: [{ type: 'video', url: 'x' }] }] },
      'messages[0].content[0]',
    ],
    ['stream_options without stream', { ...valid, stream_options: { include_usage: true } }, 'stream_options'],
    ['tool_choice without tools', { ...valid, tool_choice: 'auto' }, 'tool_choice'],
    [
      'tool_choice of an unknown value',
      { ...valid, tools: [{ type: 'function', function: { name: 'f' } }], tool_choice: 'sometimes' },
      'tool_choice',
    ],
    [
      'tool with a bad name',
      { ...valid, tools: [{ type: 'function', function: { name: 'has space' } }] },
      'tools[0].function.name',
    ],
    ['tools not an array', { ...valid, tools: { type: 'function' } }, 'tools'],
    ['parallel_tool_calls as a string', { ...valid, parallel_tool_calls: 'true' }, 'parallel_tool_calls'],
    ['response_format of an unknown type', { ...valid, response_format: { type: 'yaml' } }, 'response_format.type'],
    [
      'json_schema response_format without a schema',
      { ...valid, response_format: { type: 'json_schema' } },
      'response_format.json_schema',
    ],
    ['enable_search as a string', { ...valid, enable_search: 'on' }, 'enable_search'],
  ];

  it.each(cases)('%s', async (_name, body, param) => {
    const result = await post(body);
    expect(result.status).toBe(400);
    expect(result.body.error.type).toBe('invalid_request_error');
    expect(result.body.error.param).toBe(param);
    expect(result.body.error.message.length).toBeGreaterThan(10);
    expect(upstream.requests).toHaveLength(0);
  });

  it('malformed JSON is a 400 envelope', async () => {
    const result = await post('{"model": "test/chat", "messages": [');
    expect(result.status).toBe(400);
    expect(result.body.error.code).toBe('invalid_json');
  });

  it('a body that is not JSON at all is a 415 envelope', async () => {
    const result = await post('model=test', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(result.status).toBe(415);
    expect(result.body.error.type).toBe('invalid_request_error');
  });

  it('a body over the limit is a 413 envelope', async () => {
    const result = await post({ ...valid, messages: [{ role: 'user', content: 'x'.repeat(70_000) }] });
    expect(result.status).toBe(413);
    expect(result.body.error.code).toBe('payload_too_large');
  });

  it('the SDK surfaces a validation error as a BadRequestError with the param', async () => {
    const error = await client.chat.completions
      .create({ model: 'test/chat', messages: [], temperature: 9 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBeTruthy();
  });
});

describe('authentication and model lookup', () => {
  it('a missing key is a 401', async () => {
    const result = await post(valid, { authorization: '' });
    expect(result.status).toBe(401);
    expect(result.body.error.type).toBe('authentication_error');
  });

  it('a wrong key is a 401 through the SDK, and x-api-key works as well as Bearer', async () => {
    const wrong = new OpenAI({ apiKey: 'sk-gw-' + 'x'.repeat(40), baseURL: gateway.baseURL, maxRetries: 0 });
    await expect(
      wrong.chat.completions.create({ model: 'test/chat', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const viaHeader = await post(valid, { authorization: '', 'x-api-key': gateway.apiKey });
    expect(viaHeader.status).toBe(200);
  });

  it('an unknown model is a 404 naming model', async () => {
    const error = await client.chat.completions
      .create({ model: 'nope/none', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
  });

  it('an unknown path is a 404 envelope', async () => {
    const response = await fetch(`${gateway.url}/v1/nothing-here`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe('not_found_error');
  });
});

describe('upstream failures end cleanly', () => {
  it('an upstream 500 becomes a 502 envelope naming the provider', async () => {
    upstream.setScenario({
      failure: {
        kind: 'status',
        status: 500,
        body: JSON.stringify({ error: { message: 'boom', type: 'server_error' } }),
      },
    });
    const error = await client.chat.completions
      .create({ model: 'test/chat', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((error as Error).message).toContain('Mock AI');
  });

  it('an upstream 400 keeps its status and message', async () => {
    upstream.setScenario({
      failure: {
        kind: 'status',
        status: 400,
        body: JSON.stringify({
          error: { message: 'bad thing', type: 'invalid_request_error', param: 'messages', code: 'x' },
        }),
      },
    });
    const result = await post(valid);
    expect(result.status).toBe(400);
    expect(result.body.error.message).toContain('bad thing');
  });

  it('a garbage body is a 502', async () => {
    upstream.setScenario({ failure: { kind: 'garbage' } });
    const result = await post(valid);
    expect(result.status).toBe(502);
    expect(result.body.error.code).toBe('upstream_bad_response');
  });

  it('garbage in a stream ends it with one error event', async () => {
    upstream.setScenario({ failure: { kind: 'garbage' } });
    const stream = await client.chat.completions.create({
      model: 'test/chat',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    await expect(async () => {
      for await (const _chunk of stream) void _chunk;
    }).rejects.toThrow(/not JSON/);
  });

  it('a connection closed mid-stream ends the stream with an error event, never a hang', async () => {
    upstream.setScenario({ chunkCount: 10, failure: { kind: 'close-mid-stream', afterChunks: 3 } });
    const stream = await client.chat.completions.create({
      model: 'test/chat',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    const received: unknown[] = [];
    await expect(async () => {
      for await (const chunk of stream) received.push(chunk);
    }).rejects.toThrow(/closed|interrupted|terminated/i);
    expect(received.length).toBeGreaterThanOrEqual(1);
  });

  it('an upstream that stalls mid-stream is cut at the idle timeout with an error event', async () => {
    upstream.setScenario({ chunkCount: 10, failure: { kind: 'hang-mid-stream', afterChunks: 2 } });
    const started = Date.now();
    const stream = await client.chat.completions.create({
      model: 'test/chat',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    await expect(async () => {
      for await (const _chunk of stream) void _chunk;
    }).rejects.toThrow(/stopped sending/);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('an upstream that never answers is a 504 after the first-byte timeout', async () => {
    upstream.setScenario({ failure: { kind: 'hang' } });
    const result = await post(valid);
    expect(result.status).toBe(504);
    expect(result.body.error.code).toBe('upstream_timeout');
  });

  it('a refused connection is a 502', async () => {
    const closed = await startTestGateway({ configText: testConfigText('http://127.0.0.1:9/v1') });
    try {
      const response = await fetch(`${closed.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${closed.apiKey}` },
        body: JSON.stringify(valid),
      });
      expect(response.status).toBe(502);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('upstream_unreachable');
    } finally {
      await closed.close();
    }
  });

  it('a client that disconnects mid-stream aborts the upstream request', async () => {
    upstream.setScenario({ chunkCount: 50, chunkGapMs: 50 });
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: 'test/chat', messages: [{ role: 'user', content: 'hi' }], stream: true },
      { signal: controller.signal },
    );
    let seen = 0;
    for await (const _chunk of stream) {
      if (++seen === 3) {
        controller.abort();
        break;
      }
    }
    expect(seen).toBe(3);
    await expect.poll(() => upstream.requests[0]?.aborted, { timeout: 2000 }).toBe(true);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { parseMockUpstreamArguments } from './cli.js';
import {
  countPromptWords,
  mockEmbeddingVector,
  mockWords,
  parseMockScenario,
  planCompletion,
  readChatRequest,
  resolveScenario,
  splitIntoPieces,
  startMockUpstream,
  textDeltas,
  type MockScenario,
  type MockScenarioSelector,
  type MockUpstream,
} from './mock-upstream.js';

const started: MockUpstream[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((upstream) => upstream.close()));
});

async function startWith(scenario: MockScenario | MockScenarioSelector = {}): Promise<MockUpstream> {
  const upstream = await startMockUpstream({ port: 0, scenario });
  started.push(upstream);
  return upstream;
}

const question = {
  model: 'gpt-test',
  messages: [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: 'hello there  world' },
  ],
};

function postChat(upstream: MockUpstream, body: object, init: RequestInit = {}): Promise<Response> {
  return fetch(`${upstream.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) },
    body: JSON.stringify(body),
    signal: init.signal,
  });
}

/** The `data:` payloads of an SSE body, in order. */
function dataOf(sseText: string): string[] {
  return sseText
    .split('\n\n')
    .filter((event) => event !== '')
    .map((event) => {
      expect(event.startsWith('data: ')).toBe(true);
      return event.slice('data: '.length);
    });
}

function chunksOf(sseText: string): any[] {
  const payloads = dataOf(sseText);
  expect(payloads.at(-1)).toBe('[DONE]');
  return payloads.slice(0, -1).map((payload) => JSON.parse(payload));
}

async function waitFor(condition: () => boolean, timeoutMs = 1000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('pure pieces', () => {
  it.each([
    [[], 1],
    [[{ role: 'user', content: '  one two\nthree ' }], 3],
    [
      [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a b' },
            { type: 'image_url', image_url: { url: 'x' } },
          ],
        },
        { role: 'assistant', content: null },
      ],
      2,
    ],
    ['not a list', 1],
  ])('countPromptWords(%j) = %i', (messages, expected) => {
    expect(countPromptWords(messages)).toBe(expected);
  });

  it('repeats the lorem vocabulary deterministically', () => {
    expect(mockWords(0, 3)).toBe('lorem ipsum dolor');
    expect(mockWords(18, 2)).toBe('aliqua lorem');
  });

  it('splits text into deltas that join back to the whole', () => {
    expect(textDeltas(5, 2)).toEqual(['lorem ipsum', ' dolor sit', ' amet']);
    expect(textDeltas(5, 2).join('')).toBe(mockWords(0, 5));
    expect(splitIntoPieces('{"city":"Paris"}', 4).join('')).toBe('{"city":"Paris"}');
    expect(splitIntoPieces('{"city":"Paris"}', 4)).toHaveLength(4);
    expect(splitIntoPieces('', 4)).toEqual([]);
  });

  it('caps words at max_completion_tokens before max_tokens and reports length', () => {
    const request = readChatRequest({ ...question, stream: true, max_tokens: 50, max_completion_tokens: 3 });
    const plan = planCompletion(request, resolveScenario({ chunkCount: 4, tokensPerChunk: 2 }));
    expect(plan).toMatchObject({ wordCount: 3, finishReason: 'length', completionTokensPerChoice: 3 });
  });

  it('clamps programmatic scenario numbers that would otherwise loop or throw', () => {
    expect(resolveScenario({ chunkCount: -3, tokensPerChunk: 0, latencyMs: -1 })).toMatchObject({
      chunkCount: 0,
      tokensPerChunk: 1,
      latencyMs: 0,
    });
  });

  it('rejects scenario JSON with a message naming the field', () => {
    expect(() => parseMockScenario({ latency: 5 })).toThrow('unknown scenario field "latency"');
    expect(() => parseMockScenario({ chunkCount: -1 })).toThrow('chunkCount');
    expect(() => parseMockScenario({ failure: { kind: 'explode' } })).toThrow('failure.kind');
    expect(() => parseMockScenario({ failure: { kind: 'close-mid-stream' } })).toThrow('failure.afterChunks');
    expect(
      parseMockScenario({ chunkCount: 2, failure: { kind: 'status', status: 429, headers: { 'retry-after': '1' } } }),
    ).toBeTruthy();
  });
});

describe('CLI arguments', () => {
  it('defaults to 127.0.0.1:9100 with the default scenario', () => {
    expect(parseMockUpstreamArguments([])).toEqual({ port: 9100, host: '127.0.0.1', scenario: {}, help: false });
  });

  it('takes the port from MOCK_UPSTREAM_PORT when --port is not given, --port winning', () => {
    expect(parseMockUpstreamArguments([], { MOCK_UPSTREAM_PORT: '9333' }).port).toBe(9333);
    expect(parseMockUpstreamArguments(['--port', '9444'], { MOCK_UPSTREAM_PORT: '9333' }).port).toBe(9444);
    expect(parseMockUpstreamArguments([], { MOCK_UPSTREAM_PORT: '' }).port).toBe(9100);
    expect(() => parseMockUpstreamArguments([], { MOCK_UPSTREAM_PORT: 'x' })).toThrow('MOCK_UPSTREAM_PORT');
  });

  it('turns flags into a scenario, flags winning over --scenario', () => {
    const options = parseMockUpstreamArguments([
      '--port',
      '0',
      '--latency-ms',
      '30',
      '--chunks',
      '5',
      '--tokens-per-chunk',
      '2',
      '--chunk-gap-ms',
      '1',
      '--fail-status',
      '429',
      '--scenario',
      '{"chunkCount":9,"usageInStream":false}',
    ]);
    expect(options.port).toBe(0);
    expect(options.scenario).toEqual({
      latencyMs: 30,
      chunkCount: 5,
      tokensPerChunk: 2,
      chunkGapMs: 1,
      usageInStream: false,
      failure: { kind: 'status', status: 429 },
    });
  });

  it.each([
    [['--port', 'abc'], '--port'],
    [['--chunks', '-1'], '--chunks'],
    [['--fail-status', '99'], '--fail-status'],
    [['--scenario', '{"nope":1}'], '--scenario'],
  ])('rejects %j', (argv, flag) => {
    expect(() => parseMockUpstreamArguments(argv)).toThrow(flag);
  });
});

describe('mock upstream answers', () => {
  it('answers a non-stream request in the chat.completion shape with word-count usage', async () => {
    const upstream = await startWith({ completionTokens: 7 });
    const response = await postChat(upstream, question);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const completion = await response.json();
    expect(completion).toMatchObject({
      id: 'chatcmpl-mock-1',
      object: 'chat.completion',
      model: 'gpt-test',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: mockWords(0, 7), refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
    });
    expect(Math.abs(completion.created - Date.now() / 1000)).toBeLessThan(5);
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]).toMatchObject({
      method: 'POST',
      url: '/v1/chat/completions',
      body: question,
      aborted: false,
    });
  });

  it('honours n and max_tokens, counting completion tokens over every choice', async () => {
    const upstream = await startWith();
    const completion = await (await postChat(upstream, { ...question, n: 2, max_tokens: 4 })).json();
    expect(
      completion.choices.map((choice: any) => [choice.index, choice.message.content, choice.finish_reason]),
    ).toEqual([
      [0, 'lorem ipsum dolor sit', 'length'],
      [1, 'lorem ipsum dolor sit', 'length'],
    ]);
    expect(completion.usage).toEqual({ prompt_tokens: 5, completion_tokens: 8, total_tokens: 13 });
  });

  it('streams role chunk, content chunks, finish chunk, then [DONE]', async () => {
    const upstream = await startWith({ chunkCount: 3, tokensPerChunk: 2 });
    const response = await postChat(upstream, { ...question, stream: true });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const text = await response.text();
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    const chunks = chunksOf(text);
    expect(chunks).toHaveLength(5);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ id: 'chatcmpl-mock-1', object: 'chat.completion.chunk', model: 'gpt-test' });
    }
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '', refusal: null });
    expect(
      chunks
        .slice(1, 4)
        .map((chunk) => chunk.choices[0].delta.content)
        .join(''),
    ).toBe(mockWords(0, 6));
    expect(chunks[4].choices[0]).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' });
  });

  it('sends the usage chunk only when include_usage asks and the scenario allows it', async () => {
    const upstream = await startWith({ chunkCount: 4 });
    const withUsage = chunksOf(
      await (await postChat(upstream, { ...question, stream: true, stream_options: { include_usage: true } })).text(),
    );
    expect(withUsage.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
    });

    const withoutOption = chunksOf(await (await postChat(upstream, { ...question, stream: true })).text());
    expect(withoutOption.some((chunk) => 'usage' in chunk)).toBe(false);

    upstream.setScenario({ chunkCount: 4, usageInStream: false });
    const suppressed = chunksOf(
      await (await postChat(upstream, { ...question, stream: true, stream_options: { include_usage: true } })).text(),
    );
    expect(suppressed.some((chunk) => 'usage' in chunk)).toBe(false);
  });

  it('ends a capped stream with finish_reason length', async () => {
    const upstream = await startWith({ chunkCount: 10 });
    const chunks = chunksOf(await (await postChat(upstream, { ...question, stream: true, max_tokens: 3 })).text());
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content)).toHaveLength(3);
    expect(chunks.at(-1).choices[0].finish_reason).toBe('length');
  });

  it('streams a tool call as argument deltas that reassemble', async () => {
    const toolCall = { name: 'get_weather', arguments: '{"city":"Edinburgh","units":"celsius"}' };
    const upstream = await startWith({ toolCall });
    const chunks = chunksOf(await (await postChat(upstream, { ...question, stream: true })).text());
    const opening = chunks[0].choices[0].delta;
    expect(opening).toMatchObject({
      role: 'assistant',
      content: null,
      tool_calls: [{ index: 0, type: 'function', function: { name: 'get_weather', arguments: '' } }],
    });
    expect(opening.tool_calls[0].id).toMatch(/^call_mock_/);
    const argumentDeltas = chunks.slice(1, -1).map((chunk) => chunk.choices[0].delta.tool_calls[0].function.arguments);
    expect(argumentDeltas).toHaveLength(4);
    expect(argumentDeltas.join('')).toBe(toolCall.arguments);
    expect(chunks.at(-1).choices[0].finish_reason).toBe('tool_calls');

    const completion = await (await postChat(upstream, question)).json();
    expect(completion.choices[0]).toMatchObject({
      message: { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: toolCall }] },
      finish_reason: 'tool_calls',
    });
  });

  it('lists the mock model and accepts paths without /v1', async () => {
    const upstream = await startWith();
    const models = await (await fetch(`${upstream.url}/models`)).json();
    expect(models).toMatchObject({ object: 'list', data: [{ id: 'mock-model', object: 'model', owned_by: 'mock' }] });
    const bare = await fetch(upstream.url.replace(/\/v1$/, '/chat/completions'), {
      method: 'POST',
      body: JSON.stringify(question),
    });
    expect(bare.status).toBe(200);
  });

  it('answers unknown routes with a 404 envelope and invalid JSON with a 400 envelope', async () => {
    const upstream = await startWith();
    const missing = await fetch(`${upstream.url}/audio/speech`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toMatchObject({ type: 'invalid_request_error', param: null, code: null });

    const invalid = await fetch(`${upstream.url}/chat/completions`, { method: 'POST', body: '{"model":' });
    expect(invalid.status).toBe(400);
    const envelope = await invalid.json();
    expect(Object.keys(envelope.error)).toEqual(['message', 'type', 'param', 'code']);
    expect(envelope.error.type).toBe('invalid_request_error');
    expect(upstream.requests.at(-1)?.body).toBe('{"model":');
  });

  it('waits latencyMs before answering', async () => {
    const upstream = await startWith({ latencyMs: 60 });
    const before = Date.now();
    await (await postChat(upstream, question)).json();
    expect(Date.now() - before).toBeGreaterThanOrEqual(55);
  });
});

describe('scenario selection', () => {
  it('lets the x-mock-scenario header override the scenario for one request', async () => {
    const upstream = await startWith({ chunkCount: 8 });
    const overridden = await postChat(
      upstream,
      { ...question, stream: true },
      { headers: { 'x-mock-scenario': '{"chunkCount":2}' } },
    );
    expect(chunksOf(await overridden.text())).toHaveLength(4);
    const plain = await postChat(upstream, { ...question, stream: true });
    expect(chunksOf(await plain.text())).toHaveLength(10);
  });

  it('lets the header switch off the server failure with "failure": null', async () => {
    const upstream = await startWith({ failure: { kind: 'status', status: 500 } });
    expect((await postChat(upstream, question)).status).toBe(500);
    const healthy = await postChat(upstream, question, { headers: { 'x-mock-scenario': '{"failure":null}' } });
    expect(healthy.status).toBe(200);
  });

  it('rejects a malformed x-mock-scenario header with a 400 naming the problem', async () => {
    const upstream = await startWith();
    const notJson = await postChat(upstream, question, { headers: { 'x-mock-scenario': '{oops' } });
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error.message).toContain('x-mock-scenario');
    const badField = await postChat(upstream, question, { headers: { 'x-mock-scenario': '{"chunkCount":"many"}' } });
    expect((await badField.json()).error.message).toContain('chunkCount');
  });

  it('picks a scenario per request with a selector over the body', async () => {
    const upstream = await startWith((body) =>
      body.model === 'broken' ? { failure: { kind: 'status', status: 503 } } : {},
    );
    expect((await postChat(upstream, { ...question, model: 'broken' })).status).toBe(503);
    expect((await postChat(upstream, question)).status).toBe(200);
  });
});

describe('failures', () => {
  it('answers 500 instead of crashing when a programmatic status is impossible', async () => {
    const upstream = await startWith({ failure: { kind: 'status', status: 99 } });
    const response = await postChat(upstream, question);
    expect(response.status).toBe(500);
    expect((await response.json()).error.type).toBe('server_error');
    upstream.setScenario({ latencyMs: 5, failure: { kind: 'status', status: 99 } });
    expect((await postChat(upstream, question)).status).toBe(500);
  });

  it('answers a status failure with its headers and an OpenAI envelope', async () => {
    const upstream = await startWith({ failure: { kind: 'status', status: 429, headers: { 'retry-after': '2' } } });
    const response = await postChat(upstream, question);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('2');
    expect((await response.json()).error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' });

    upstream.setScenario({ failure: { kind: 'status', status: 500, body: 'upstream fell over' } });
    const custom = await postChat(upstream, question);
    expect([custom.status, await custom.text()]).toEqual([500, 'upstream fell over']);
  });

  it('hangs without headers until the client gives up', async () => {
    const upstream = await startWith({ failure: { kind: 'hang' } });
    await expect(postChat(upstream, question, { signal: AbortSignal.timeout(100) })).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    await waitFor(() => upstream.requests[0]?.aborted === true);
  });

  it('stalls mid-stream after the given chunks with the socket left open', async () => {
    const upstream = await startWith({ chunkCount: 10, failure: { kind: 'hang-mid-stream', afterChunks: 2 } });
    const controller = new AbortController();
    const response = await postChat(upstream, { ...question, stream: true }, { signal: controller.signal });
    const reader = response.body!.getReader();
    let received = '';
    while ((received.match(/\n\n/g) ?? []).length < 3)
      received += new TextDecoder().decode((await reader.read()).value);
    const next = await Promise.race([
      reader.read().then(() => 'more data'),
      new Promise((resolve) => setTimeout(resolve, 100, 'stalled')),
    ]);
    expect(next).toBe('stalled');
    expect(dataOf(received).map((payload) => JSON.parse(payload).choices[0].delta.content)).toEqual([
      '',
      'lorem',
      ' ipsum',
    ]);
    controller.abort();
  });

  it('cuts the connection mid-stream so reading the body fails', async () => {
    const upstream = await startWith({ chunkCount: 10, failure: { kind: 'close-mid-stream', afterChunks: 3 } });
    const response = await postChat(upstream, { ...question, stream: true });
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
    expect(upstream.requests[0].aborted).toBe(false);

    const nonStream = await postChat(upstream, question);
    await expect(nonStream.json()).rejects.toThrow();
  });

  it('sends garbage that is neither JSON nor SSE JSON', async () => {
    const upstream = await startWith({ failure: { kind: 'garbage' } });
    const streamed = await (await postChat(upstream, { ...question, stream: true })).text();
    expect(() => JSON.parse(dataOf(streamed)[0])).toThrow();
    const plain = await postChat(upstream, question);
    expect(plain.status).toBe(200);
    await expect(plain.json()).rejects.toThrow();
  });

  it('resets the connection without answering', async () => {
    const upstream = await startWith({ failure: { kind: 'reset' } });
    await expect(postChat(upstream, question)).rejects.toThrow();
    expect(upstream.requests).toHaveLength(1);
  });
});

describe('client aborts and shutdown', () => {
  it('marks the request aborted when the client disconnects mid-stream', async () => {
    const upstream = await startWith({ chunkCount: 50, chunkGapMs: 20 });
    const controller = new AbortController();
    const response = await postChat(upstream, { ...question, stream: true }, { signal: controller.signal });
    await response.body!.getReader().read();
    expect(upstream.requests[0].aborted).toBe(false);
    controller.abort();
    await waitFor(() => upstream.requests[0].aborted);
  });

  it('does not mark a request aborted when a gapped stream completes', async () => {
    const upstream = await startWith({ chunkCount: 3, chunkGapMs: 5 });
    const chunks = chunksOf(await (await postChat(upstream, { ...question, stream: true })).text());
    expect(chunks).toHaveLength(5);
    expect(upstream.requests[0].aborted).toBe(false);
  });

  it('closes promptly even with a hanging request open', async () => {
    const upstream = await startMockUpstream({ port: 0, scenario: { failure: { kind: 'hang' } } });
    const pending = postChat(upstream, question);
    await waitFor(() => upstream.requests.length === 1);
    await upstream.close();
    await expect(pending).rejects.toThrow();
    expect(upstream.requests[0].aborted).toBe(false);
  });
});

describe('mock upstream embeddings', () => {
  it('answers deterministic vectors with the asked dimensions and one token a word', async () => {
    const upstream = await startMockUpstream();
    try {
      const response = await fetch(`${upstream.url}/embeddings`, {
        method: 'POST',
        body: JSON.stringify({ model: 'm', input: ['a b', 'c'], dimensions: 3 }),
      });
      expect(response.status).toBe(200);
      const body = await response.json();
      expect(body.data.map((item: { embedding: number[] }) => item.embedding)).toEqual([
        mockEmbeddingVector('a b', 3),
        mockEmbeddingVector('c', 3),
      ]);
      expect(body.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
      expect(mockEmbeddingVector('a b', 3)).not.toEqual(mockEmbeddingVector('c', 3));
    } finally {
      await upstream.close();
    }
  });
});

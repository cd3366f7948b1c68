import { startFakeUpstream, type RecordedRequest, type UpstreamAnswer } from './fake-upstream.js';
import { buildEmbeddingsAnswer, mockEmbeddingVector } from '../../src/mock-upstream/mock-embeddings.js';

/** Answers one request in a provider's own wire format, or undefined to fall through. */
export type FakeRoute = (request: RecordedRequest) => UpstreamAnswer | undefined;

export interface ProtocolFakes {
  /** http://127.0.0.1:PORT (no path). */
  url: string;
  /** Every request, as the fake upstream records it (`json` is the parsed body). */
  requests: RecordedRequest[];
  /** Answer the next requests with this instead (failures: 429, 500…); null restores the fakes. */
  override(answer: FakeRoute | null): void;
  close(): Promise<void>;
}

const json = (body: unknown, status = 200): UpstreamAnswer => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** Gemini batchEmbedContents: {requests: [{content: {parts: [{text}]}, outputDimensionality}]} → {embeddings: [{values}]}. */
export const geminiEmbeddingsRoute: FakeRoute = (request) => {
  if (!/\/models\/[^/]+:batchEmbedContents$/.test(request.url)) return undefined;
  const entries = request.json?.requests ?? [];
  return json({
    embeddings: entries.map((entry: any) => ({
      values: mockEmbeddingVector(
        entry.content.parts.map((part: any) => part.text).join(''),
        entry.outputDimensionality ?? 8,
      ),
    })),
  });
};

/** Bedrock InvokeModel: Titan ({inputText} → {embedding, inputTextTokenCount}) and Cohere ({texts} → {embeddings}). */
export const bedrockEmbeddingsRoute: FakeRoute = (request) => {
  const match = /^\/model\/([^/]+)\/invoke$/.exec(request.url);
  if (!match) return undefined;
  const model = decodeURIComponent(match[1]);
  if (model.includes('cohere.embed')) {
    return json({
      id: 'fake',
      response_type: 'embeddings_floats',
      texts: request.json.texts,
      embeddings: request.json.texts.map((text: string) =>
        mockEmbeddingVector(text, request.json.output_dimension ?? 8),
      ),
    });
  }
  const text: string = request.json.inputText;
  return json({
    embedding: mockEmbeddingVector(text, request.json.dimensions ?? 8),
    inputTextTokenCount: text.split(/\s+/).filter(Boolean).length,
  });
};

/** Ollama /api/embed: {input: [..]} → {embeddings, prompt_eval_count}. */
export const ollamaEmbeddingsRoute: FakeRoute = (request) => {
  if (request.url !== '/api/embed') return undefined;
  const texts: string[] = Array.isArray(request.json.input) ? request.json.input : [request.json.input];
  return json({
    model: request.json.model,
    embeddings: texts.map((text) => mockEmbeddingVector(text, request.json.dimensions ?? 8)),
    prompt_eval_count: texts.reduce((sum, text) => sum + text.split(/\s+/).filter(Boolean).length, 0),
  });
};

/** OpenAI /v1/embeddings, as the project's fake upstream answers it. */
export const openAIEmbeddingsRoute: FakeRoute = (request) => {
  if (!request.url.endsWith('/embeddings')) return undefined;
  const answer = buildEmbeddingsAnswer(request.json);
  return json(answer.body, answer.status);
};

/**
 * The fake upstream (test/helpers/fake-upstream.ts) speaking several providers' protocols: each
 * route answers in that provider's own wire format; the first route that answers wins.
 */
export async function startProtocolFakes(routes: FakeRoute[]): Promise<ProtocolFakes> {
  const upstream = await startFakeUpstream();
  let overrideAnswer: FakeRoute | null = null;
  upstream.answer(
    (recorded) =>
      overrideAnswer?.(recorded) ??
      routes.reduce<UpstreamAnswer | undefined>((found, route) => found ?? route(recorded), undefined) ??
      json({ error: { message: `no fake for ${recorded.method} ${recorded.url}` } }, 404),
  );
  return {
    url: upstream.url,
    requests: upstream.requests,
    override(answer) {
      overrideAnswer = answer;
    },
    close: () => upstream.close(),
  };
}

/* Chat fakes: the same behaviour in three protocols. With tools and no tool result yet, the model
 * calls the first tool with {"city":"Paris"}; after a tool result it says "The tool said: <result>";
 * asked for JSON it answers {"answer":42}; otherwise "Hello from <protocol>". Usage: 11 in, 7 out. */

export const TOOL_ARGUMENTS = '{"city":"Paris"}';
type Turn = { kind: 'tool'; name: string } | { kind: 'text'; text: string };

function decide(protocol: string, toolName: string | undefined, toolResult: string | undefined, json: boolean): Turn {
  if (toolResult !== undefined) return { kind: 'text', text: `The tool said: ${toolResult}` };
  if (toolName) return { kind: 'tool', name: toolName };
  return { kind: 'text', text: json ? '{"answer":42}' : `Hello from ${protocol}` };
}

const sse = (events: Array<[string | null, unknown]>, crlf = false): UpstreamAnswer => ({
  status: 200,
  headers: { 'content-type': 'text/event-stream' },
  body: events
    .map(
      ([name, data]) =>
        `${name ? `event: ${name}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}${crlf ? '\r\n\r\n' : '\n\n'}`,
    )
    .join(''),
});

const openAIChatRoute: FakeRoute = (request) => {
  if (!request.url.endsWith('/chat/completions')) return undefined;
  const body = request.json;
  const last = body.messages.at(-1);
  const turn = decide(
    'openai',
    body.tools?.[0]?.function?.name,
    last.role === 'tool' ? String(last.content) : undefined,
    body.response_format?.type === 'json_schema' || body.response_format?.type === 'json_object',
  );
  const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
  const head = { id: 'chatcmpl-fake', created: 1, model: body.model };
  const call = {
    id: 'call_fake_1',
    type: 'function',
    function: { name: turn.kind === 'tool' ? turn.name : '', arguments: TOOL_ARGUMENTS },
  };
  if (!body.stream) {
    const message =
      turn.kind === 'tool'
        ? { role: 'assistant', content: null, tool_calls: [call] }
        : { role: 'assistant', content: turn.text };
    return json({
      ...head,
      object: 'chat.completion',
      choices: [{ index: 0, message, finish_reason: turn.kind === 'tool' ? 'tool_calls' : 'stop' }],
      usage,
    });
  }
  const chunk = (delta: unknown, finish: string | null = null) =>
    [null, { ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] }] as [
      null,
      unknown,
    ];
  const events: Array<[string | null, unknown]> = [chunk({ role: 'assistant', content: '' })];
  if (turn.kind === 'tool') {
    events.push(
      chunk({
        tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: turn.name, arguments: '' } }],
      }),
    );
    events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }));
    events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }));
    events.push(chunk({}, 'tool_calls'));
  } else {
    const middle = Math.floor(turn.text.length / 2);
    events.push(
      chunk({ content: turn.text.slice(0, middle) }),
      chunk({ content: turn.text.slice(middle) }),
      chunk({}, 'stop'),
    );
  }
  events.push([null, { ...head, object: 'chat.completion.chunk', choices: [], usage }], [null, '[DONE]']);
  return sse(events);
};

const anthropicMessagesRoute: FakeRoute = (request) => {
  if (!request.url.endsWith('/messages')) return undefined;
  const body = request.json;
  const last = body.messages.at(-1);
  const result = Array.isArray(last.content)
    ? last.content.find((block: any) => block.type === 'tool_result')
    : undefined;
  const resultText =
    result === undefined
      ? undefined
      : typeof result.content === 'string'
        ? result.content
        : result.content.map((block: any) => block.text).join('');
  const turn = decide('anthropic', body.tools?.[0]?.name, resultText, false);
  const usage = { input_tokens: 11, output_tokens: 7 };
  const stopReason = turn.kind === 'tool' ? 'tool_use' : 'end_turn';
  if (!body.stream) {
    const content =
      turn.kind === 'tool'
        ? [{ type: 'tool_use', id: 'toolu_fake_1', name: turn.name, input: { city: 'Paris' } }]
        : [{ type: 'text', text: turn.text }];
    return json({
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model: body.model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    });
  }
  const events: Array<[string, unknown]> = [
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          id: 'msg_fake',
          type: 'message',
          role: 'assistant',
          model: body.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 11, output_tokens: 1 },
        },
      },
    ],
  ];
  if (turn.kind === 'tool') {
    events.push([
      'content_block_start',
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_fake_1', name: turn.name, input: {} },
      },
    ]);
    events.push([
      'content_block_delta',
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"city":' } },
    ]);
    events.push([
      'content_block_delta',
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } },
    ]);
  } else {
    const middle = Math.floor(turn.text.length / 2);
    events.push([
      'content_block_start',
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ]);
    events.push(['ping', { type: 'ping' }]);
    events.push([
      'content_block_delta',
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: turn.text.slice(0, middle) } },
    ]);
    events.push([
      'content_block_delta',
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: turn.text.slice(middle) } },
    ]);
  }
  events.push(['content_block_stop', { type: 'content_block_stop', index: 0 }]);
  events.push([
    'message_delta',
    { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 7 } },
  ]);
  events.push(['message_stop', { type: 'message_stop' }]);
  return sse(events);
};

const geminiChatRoute: FakeRoute = (request) => {
  const match = /\/models\/([^/:]+):(generateContent|streamGenerateContent)/.exec(request.url);
  if (!match) return undefined;
  const body = request.json;
  const lastParts: any[] = body.contents.at(-1)?.parts ?? [];
  const response = lastParts.find((part) => part.functionResponse)?.functionResponse?.response;
  const resultText =
    response === undefined
      ? undefined
      : typeof (response.content ?? response.output) === 'string'
        ? (response.content ?? response.output)
        : JSON.stringify(response);
  const turn = decide(
    'gemini',
    body.tools?.[0]?.functionDeclarations?.[0]?.name,
    resultText,
    body.generationConfig?.responseMimeType === 'application/json',
  );
  const usageMetadata = { promptTokenCount: 11, candidatesTokenCount: 7, totalTokenCount: 18 };
  const parts =
    turn.kind === 'tool' ? [{ functionCall: { name: turn.name, args: { city: 'Paris' } } }] : [{ text: turn.text }];
  const answer = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata,
    modelVersion: match[1],
  };
  if (match[2] === 'generateContent') return json(answer);
  if (turn.kind === 'tool') return sse([[null, answer]], true);
  const middle = Math.floor(turn.text.length / 2);
  return sse(
    [
      [
        null,
        {
          candidates: [{ content: { role: 'model', parts: [{ text: turn.text.slice(0, middle) }] }, index: 0 }],
          usageMetadata: { promptTokenCount: 11, totalTokenCount: 11 },
        },
      ],
      [
        null,
        {
          ...answer,
          candidates: [
            { ...answer.candidates[0], content: { role: 'model', parts: [{ text: turn.text.slice(middle) }] } },
          ],
        },
      ],
    ],
    true,
  );
};

/** Config for three models on the three chat protocols, all served by one fakes server. */
export function threeProtocolConfig(url: string, extra = ''): string {
  const timeouts = '{ connect_ms: 1000, first_byte_ms: 3000, idle_ms: 3000, total_ms: 8000 }';
  return `
providers:
  - { id: oai, name: OpenAI-compatible, type: openai, base_url: ${url}/v1, api_key: oai-secret, timeouts: ${timeouts} }
  - { id: claude, name: Anthropic, type: anthropic, base_url: ${url}/v1, api_key: anthropic-secret, timeouts: ${timeouts} }
  - { id: gem, name: Gemini, type: gemini, base_url: ${url}/v1beta, api_key: gem-secret, timeouts: ${timeouts} }
models:
  - id: test/openai
    endpoints: [{ provider: oai, upstream_model: gpt-fake, pricing: { prompt: 1, completion: 2 } }]
  - id: test/claude
    endpoints: [{ provider: claude, upstream_model: claude-fake, pricing: { prompt: 3, completion: 15 } }]
  - id: test/gemini
    endpoints: [{ provider: gem, upstream_model: gemini-fake, pricing: { prompt: 0.5, completion: 1 } }]
${extra}`;
}

export const CHAT_PROTOCOL_ROUTES: FakeRoute[] = [openAIChatRoute, anthropicMessagesRoute, geminiChatRoute];

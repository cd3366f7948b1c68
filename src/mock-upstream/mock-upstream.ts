/**
 * A fake OpenAI-compatible upstream for tests, benchmarks and load tests of a deployment.
 *
 * It speaks the chat-completions wire format (JSON and SSE) with deterministic "lorem ipsum"
 * answers, and can misbehave on purpose (error statuses, hangs, cut streams, garbage, resets)
 * so the gateway's failure paths can be exercised without a real provider.
 *
 * Speed matters because benchmarks compare the gateway against this server directly: plain
 * node:http, stream chunks cached per answer shape, and with no chunk gap the whole stream goes
 * out in a single write.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  isPlainObject,
  parseMockScenario,
  resolveScenario,
  type MockScenario,
  type MockScenarioSelector,
  type ResolvedScenario,
} from './mock-scenario.js';
import {
  buildCompletion,
  buildStreamScript,
  chunkHead,
  defaultFailureBody,
  errorEnvelope,
  planCompletion,
  readChatRequest,
  renderEvents,
  usageOf,
  type ChatRequestFields,
  type CompletionIdentity,
  type CompletionPlan,
  type StreamScript,
} from './mock-answers.js';
import { buildEmbeddingsAnswer } from './mock-embeddings.js';

// Scenarios and answers live beside this file; importers of the fake upstream get all of it here.
export * from './mock-scenario.js';
export * from './mock-answers.js';
export * from './mock-embeddings.js';
export * from './mock-schema-instance.js';

interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON when possible, else the raw text, or undefined when empty. */
  body: unknown;
  receivedAt: number;
  /** True when the client closed the connection before the response finished. */
  aborted: boolean;
}

export interface MockUpstream {
  /** Base URL to configure as a provider, ending in /v1. */
  url: string;
  port: number;
  /** Requests received, oldest first, at most the last 1000. */
  requests: RecordedRequest[];
  setScenario(scenario: MockScenario | MockScenarioSelector): void;
  close(): Promise<void>;
}

export interface MockUpstreamOptions {
  port?: number;
  host?: string;
  scenario?: MockScenario | MockScenarioSelector;
  /** Default true. Load tests turn it off to skip the bookkeeping. */
  recordRequests?: boolean;
}

const SCENARIO_HEADER = 'x-mock-scenario';
const MAX_RECORDED_REQUESTS = 1000;
const MAX_CACHED_STREAM_SCRIPTS = 64;

const MODELS_BODY = JSON.stringify({
  object: 'list',
  data: [{ id: 'mock-model', object: 'model', created: Math.floor(Date.now() / 1000), owned_by: 'mock' }],
});
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

function sendJson(
  response: http.ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  response.end(body);
}

function routeOf(method: string | undefined, url: string | undefined): 'chat' | 'embeddings' | 'models' | 'not-found' {
  const path = (url ?? '').split('?', 1)[0];
  if (method === 'POST' && (path === '/v1/chat/completions' || path === '/chat/completions')) return 'chat';
  if (method === 'POST' && (path === '/v1/embeddings' || path === '/embeddings')) return 'embeddings';
  if (method === 'GET' && (path === '/v1/models' || path === '/models')) return 'models';
  return 'not-found';
}

function parseBody(text: string): { ok: true; value: unknown } | { ok: false; value?: undefined } {
  if (text === '') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** A bad programmatic scenario (say, status 99) must fail its own request, not the test process. */
function failRequestOnThrow(response: http.ServerResponse, action: () => void): void {
  try {
    action();
  } catch (error) {
    if (response.headersSent) return void response.destroy();
    sendJson(response, 500, errorEnvelope(`Mock upstream failed: ${(error as Error).message}`, 'server_error'));
  }
}

/** One request in flight: its timers die with it, and it knows who ended it. */
class Exchange {
  private timer: NodeJS.Timeout | undefined;
  private endedByMock = false;

  constructor(
    readonly response: http.ServerResponse,
    record: RecordedRequest | undefined,
    isServerClosing: () => boolean,
  ) {
    response.once('close', () => {
      clearTimeout(this.timer);
      if (record && !response.writableFinished && !this.endedByMock && !isServerClosing()) record.aborted = true;
    });
  }

  /** Runs now when there is nothing to wait for, which keeps the zero-latency path synchronous. */
  after(milliseconds: number, action: () => void): void {
    if (milliseconds <= 0) action();
    else this.timer = setTimeout(() => failRequestOnThrow(this.response, action), milliseconds);
  }

  /**
   * Ends the connection on the mock's own initiative: a reset at once; a close after the socket's
   * own queue is flushed. Call it from the callback of the response's last write: since Node
   * 24.22 a chunked response keeps its writes until the end of the tick, and a close called in
   * the same tick went out before them (the client saw the cut and none of the promised chunks).
   */
  destroy(reset = false): void {
    this.endedByMock = true;
    const socket = this.response.socket;
    if (!socket) return;
    if (reset) socket.resetAndDestroy();
    else socket.end(() => socket.destroy());
  }
}

interface ServerState {
  scenario: MockScenario | MockScenarioSelector;
  requests: RecordedRequest[];
  recordRequests: boolean;
  completionCount: number;
  streamScripts: Map<string, StreamScript>;
  closing: boolean;
}

function scriptFor(state: ServerState, plan: CompletionPlan, identity: CompletionIdentity): StreamScript {
  // Tool call ids are unique per request and structured answers differ by schema: only lorem answers share.
  if (plan.toolCall || plan.text !== undefined) return buildStreamScript(plan, identity.toolCallId);
  const key = `${plan.choiceCount}:${plan.wordCount}:${plan.tokensPerChunk}:${plan.finishReason}`;
  let script = state.streamScripts.get(key);
  if (!script) {
    if (state.streamScripts.size >= MAX_CACHED_STREAM_SCRIPTS) state.streamScripts.clear();
    script = buildStreamScript(plan, identity.toolCallId);
    state.streamScripts.set(key, script);
  }
  return script;
}

function answerStream(
  exchange: Exchange,
  state: ServerState,
  request: ChatRequestFields,
  scenario: ResolvedScenario,
  identity: CompletionIdentity,
): void {
  const { response } = exchange;
  const plan = planCompletion(request, scenario);
  const script = scriptFor(state, plan, identity);
  const head = chunkHead(identity);
  const failure = scenario.failure;
  const cut = failure?.kind === 'hang-mid-stream' || failure?.kind === 'close-mid-stream' ? failure : undefined;
  const contentToSend = cut ? Math.min(cut.afterChunks, script.content.length) : script.content.length;

  const ending = () => {
    let text = renderEvents(head, script.closing);
    if (request.includeUsage && scenario.usageInStream) {
      text += 'data: ' + head + `[],"usage":${JSON.stringify(usageOf(plan, request.promptTokens))}}` + '\n\n';
    }
    return text + 'data: [DONE]\n\n';
  };
  // A hang leaves the socket open with nothing more to say; a close cuts it.
  // Passed as the last write's callback: runs once that write has reached the socket (an error
  // means the client is gone, and there is nothing left to cut).
  const interrupt = (kind: 'hang-mid-stream' | 'close-mid-stream') => (error?: Error | null) => {
    if (!error && kind === 'close-mid-stream') exchange.destroy();
  };

  response.writeHead(200, SSE_HEADERS);
  if (scenario.chunkGapMs <= 0) {
    const started = renderEvents(head, script.opening) + renderEvents(head, script.content, 0, contentToSend);
    if (!cut) return void response.end(started + ending());
    return void response.write(started, interrupt(cut.kind));
  }
  let sent = 0;
  // The last write of what is sent: the cut follows it, or the ending does.
  const writeLast = (text: string) => {
    if (cut) response.write(text, interrupt(cut.kind));
    else response.end(text + ending());
  };
  const sendNext = () => {
    const text = renderEvents(head, script.content, sent, ++sent);
    if (sent < contentToSend) {
      response.write(text);
      exchange.after(scenario.chunkGapMs, sendNext);
    } else writeLast(text);
  };
  if (contentToSend === 0) return writeLast(renderEvents(head, script.opening));
  response.write(renderEvents(head, script.opening));
  exchange.after(scenario.chunkGapMs, sendNext);
}

function answerChat(
  exchange: Exchange,
  state: ServerState,
  body: Record<string, unknown>,
  scenario: ResolvedScenario,
): void {
  const { response } = exchange;
  const failure = scenario.failure;
  if (failure?.kind === 'hang') return;
  exchange.after(scenario.latencyMs, () => {
    if (failure?.kind === 'reset') return exchange.destroy(true);
    if (failure?.kind === 'status') {
      return sendJson(response, failure.status, failure.body ?? defaultFailureBody(failure.status), failure.headers);
    }
    const request = readChatRequest(body);
    if (failure?.kind === 'garbage') {
      if (request.stream) {
        response.writeHead(200, SSE_HEADERS);
        return void response.end('data: {not json\n\n');
      }
      return sendJson(response, 200, '<html>oops');
    }
    const completionNumber = ++state.completionCount;
    const identity: CompletionIdentity = {
      id: `chatcmpl-mock-${completionNumber}`,
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      toolCallId: (choiceIndex) => `call_mock_${completionNumber}_${choiceIndex}`,
    };
    if (request.stream) return answerStream(exchange, state, request, scenario, identity);
    const text = JSON.stringify(buildCompletion(identity, planCompletion(request, scenario), request.promptTokens));
    if (failure?.kind !== 'hang-mid-stream' && failure?.kind !== 'close-mid-stream')
      return sendJson(response, 200, text);
    // A non-stream answer "mid-stream" is a truncated body: the promised length never arrives.
    const bytes = Buffer.from(text);
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
    response.write(bytes.subarray(0, bytes.length >> 1), (error) => {
      if (!error && failure.kind === 'close-mid-stream') exchange.destroy();
    });
  });
}

/** The header overrides the server's scenario field by field, for that request only. */
function scenarioOverride(header: string | string[] | undefined): MockScenario {
  if (typeof header !== 'string') return {};
  let value: unknown;
  try {
    value = JSON.parse(header);
  } catch {
    throw new TypeError(`${SCENARIO_HEADER} is not valid JSON`);
  }
  return parseMockScenario(value);
}

function record(
  state: ServerState,
  request: http.IncomingMessage,
  body: unknown,
  receivedAt: number,
): RecordedRequest | undefined {
  if (!state.recordRequests) return undefined;
  const entry: RecordedRequest = {
    method: request.method ?? '',
    url: request.url ?? '',
    headers: request.headers,
    body,
    receivedAt,
    aborted: false,
  };
  state.requests.push(entry);
  if (state.requests.length > MAX_RECORDED_REQUESTS)
    state.requests.splice(0, state.requests.length - MAX_RECORDED_REQUESTS);
  return entry;
}

function handle(
  state: ServerState,
  request: http.IncomingMessage,
  response: http.ServerResponse,
  rawBody: string,
  receivedAt: number,
): void {
  const parsed = parseBody(rawBody);
  const recordedBody = parsed.ok ? parsed.value : rawBody === '' ? undefined : rawBody;
  const exchange = new Exchange(response, record(state, request, recordedBody, receivedAt), () => state.closing);
  const route = routeOf(request.method, request.url);
  if (route === 'models') return sendJson(response, 200, MODELS_BODY);
  if (route === 'not-found')
    return sendJson(response, 404, errorEnvelope(`Invalid URL (${request.method} ${request.url})`));
  if (!parsed.ok || !isPlainObject(parsed.value)) {
    return sendJson(
      response,
      400,
      errorEnvelope('We could not parse the JSON body of your request: expected a JSON object.'),
    );
  }
  let override: MockScenario;
  try {
    override = scenarioOverride(request.headers[SCENARIO_HEADER]);
  } catch (error) {
    return sendJson(response, 400, errorEnvelope(`Mock upstream: ${(error as Error).message}`));
  }
  let base: MockScenario;
  try {
    base = typeof state.scenario === 'function' ? state.scenario(parsed.value) : state.scenario;
  } catch (error) {
    return sendJson(
      response,
      500,
      errorEnvelope(`Mock upstream: the scenario selector threw: ${String(error)}`, 'server_error'),
    );
  }
  const scenario = resolveScenario({ ...base, ...override });
  if (route === 'embeddings') return answerEmbeddings(exchange, parsed.value, scenario);
  answerChat(exchange, state, parsed.value, scenario);
}

/** Embeddings honour the scenario's latency and failures (status, hang, reset, garbage). */
function answerEmbeddings(exchange: Exchange, body: Record<string, unknown>, scenario: ResolvedScenario): void {
  const { response } = exchange;
  const failure = scenario.failure;
  if (failure?.kind === 'hang') return;
  exchange.after(scenario.latencyMs, () => {
    if (failure?.kind === 'reset') return exchange.destroy(true);
    if (failure?.kind === 'status')
      return sendJson(response, failure.status, failure.body ?? defaultFailureBody(failure.status), failure.headers);
    if (failure?.kind === 'garbage') return sendJson(response, 200, '<html>oops');
    const answer = buildEmbeddingsAnswer(body);
    sendJson(response, answer.status, JSON.stringify(answer.body));
  });
}

export async function startMockUpstream(options: MockUpstreamOptions = {}): Promise<MockUpstream> {
  const state: ServerState = {
    scenario: options.scenario ?? {},
    requests: [],
    recordRequests: options.recordRequests ?? true,
    completionCount: 0,
    streamScripts: new Map(),
    closing: false,
  };
  // noDelay so chunks sent with a gap leave at once instead of waiting for Nagle's algorithm.
  const server = http.createServer({ noDelay: true }, (request, response) => {
    const receivedAt = Date.now();
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const rawBody = parts.length === 1 ? parts[0].toString() : Buffer.concat(parts).toString();
      failRequestOnThrow(response, () => handle(state, request, response, rawBody, receivedAt));
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/v1`,
    port,
    requests: state.requests,
    setScenario(scenario) {
      state.scenario = scenario;
    },
    close() {
      state.closing = true;
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Hanging exchanges never finish on their own; without this, close() would wait forever.
        server.closeAllConnections();
      });
    },
  };
}

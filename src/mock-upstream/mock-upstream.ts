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

export type MockFailure =
  | { kind: 'status'; status: number; body?: string; headers?: Record<string, string> }
  | { kind: 'hang' }
  | { kind: 'hang-mid-stream'; afterChunks: number }
  | { kind: 'close-mid-stream'; afterChunks: number }
  | { kind: 'garbage' }
  | { kind: 'reset' };

export interface MockScenario {
  /** Delay before anything is answered (headers, a failure status or a reset). */
  latencyMs?: number;
  /** Stream: number of content chunks. */
  chunkCount?: number;
  /** Words per content chunk. */
  tokensPerChunk?: number;
  /** Stream: delay before each content chunk. */
  chunkGapMs?: number;
  /** Non-stream: words in the answer; defaults to chunkCount × tokensPerChunk. */
  completionTokens?: number;
  failure?: MockFailure;
  /** Answer with this tool call instead of text. */
  toolCall?: { name: string; arguments: string };
  /** Send the usage chunk when the request asks for it with stream_options.include_usage. */
  usageInStream?: boolean;
}

/** Picks the behaviour for one request from its parsed JSON body. */
export type MockScenarioSelector = (body: any) => MockScenario;

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON when possible, else the raw text, or undefined when empty. */
  body: any;
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

export const SCENARIO_HEADER = 'x-mock-scenario';
const MAX_RECORDED_REQUESTS = 1000;
const MAX_CACHED_STREAM_SCRIPTS = 64;
const MAX_CHOICES = 128;
const TOOL_ARGUMENT_PIECES = 4;
const LOREM = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut ' +
  'labore et dolore magna aliqua'
).split(' ');

// ---------------------------------------------------------------------------------------------
// Pure pieces: scenario defaults, reading the request, planning and rendering the answer.

export type ResolvedScenario = Required<Omit<MockScenario, 'failure' | 'toolCall'>> &
  Pick<MockScenario, 'failure' | 'toolCall'>;

/** Programmatic scenarios skip parseMockScenario, so a stray 0 or -1 must not loop or throw later. */
function wholeAtLeast(value: number | undefined, fallback: number, minimum: number): number {
  return value === undefined || !Number.isFinite(value) ? fallback : Math.max(minimum, Math.floor(value));
}

export function resolveScenario(scenario: MockScenario): ResolvedScenario {
  const chunkCount = wholeAtLeast(scenario.chunkCount, 20, 0);
  const tokensPerChunk = wholeAtLeast(scenario.tokensPerChunk, 1, 1);
  return {
    latencyMs: wholeAtLeast(scenario.latencyMs, 0, 0),
    chunkCount,
    tokensPerChunk,
    chunkGapMs: wholeAtLeast(scenario.chunkGapMs, 0, 0),
    completionTokens: wholeAtLeast(scenario.completionTokens, chunkCount * tokensPerChunk, 0),
    usageInStream: scenario.usageInStream ?? true,
    failure: scenario.failure,
    toolCall: scenario.toolCall,
  };
}

/** The deterministic answer text: `count` words of the lorem vocabulary starting at word `start`. */
export function mockWords(start: number, count: number): string {
  const words = new Array<string>(count);
  for (let offset = 0; offset < count; offset++) words[offset] = LOREM[(start + offset) % LOREM.length];
  return words.join(' ');
}

function countWords(text: string): number {
  const trimmed = text.trim();
  return trimmed === '' ? 0 : trimmed.split(/\s+/).length;
}

/** Prompt "tokens" are whitespace-separated words of the messages' text, at least 1 like a real tokenizer. */
export function countPromptWords(messages: unknown): number {
  let count = 0;
  if (Array.isArray(messages)) {
    for (const message of messages) {
      const content = message?.content;
      if (typeof content === 'string') count += countWords(content);
      else if (Array.isArray(content)) {
        for (const part of content) if (typeof part?.text === 'string') count += countWords(part.text);
      }
    }
  }
  return Math.max(1, count);
}

/** The fields of a chat request the mock reacts to; anything malformed falls back to a default. */
export interface ChatRequestFields {
  model: string;
  stream: boolean;
  includeUsage: boolean;
  choiceCount: number;
  maxTokens: number | undefined;
  promptTokens: number;
}

function positiveInteger(value: unknown): number | undefined {
  return Number.isInteger(value) && (value as number) > 0 ? (value as number) : undefined;
}

export function readChatRequest(body: Record<string, any>): ChatRequestFields {
  return {
    model: typeof body.model === 'string' ? body.model : 'mock-model',
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true,
    choiceCount: Math.min(positiveInteger(body.n) ?? 1, MAX_CHOICES),
    maxTokens: positiveInteger(body.max_completion_tokens) ?? positiveInteger(body.max_tokens),
    promptTokens: countPromptWords(body.messages),
  };
}

export interface CompletionPlan {
  choiceCount: number;
  /** Words of text per choice; 0 for a tool call. */
  wordCount: number;
  tokensPerChunk: number;
  toolCall: { name: string; arguments: string } | undefined;
  finishReason: 'stop' | 'length' | 'tool_calls';
  completionTokensPerChoice: number;
}

export function planCompletion(request: ChatRequestFields, scenario: ResolvedScenario): CompletionPlan {
  const { choiceCount } = request;
  const { tokensPerChunk, toolCall } = scenario;
  if (toolCall) {
    // Roughly four characters per token, the usual rule of thumb for JSON arguments.
    const toolTokens = Math.max(1, Math.ceil(toolCall.arguments.length / 4));
    return { choiceCount, wordCount: 0, tokensPerChunk, toolCall, finishReason: 'tool_calls', completionTokensPerChoice: toolTokens };
  }
  const wanted = request.stream ? scenario.chunkCount * tokensPerChunk : scenario.completionTokens;
  const wordCount = request.maxTokens === undefined ? wanted : Math.min(wanted, request.maxTokens);
  const finishReason = wordCount < wanted ? 'length' : 'stop';
  return { choiceCount, wordCount, tokensPerChunk, toolCall: undefined, finishReason, completionTokensPerChoice: wordCount };
}

export function usageOf(plan: CompletionPlan, promptTokens: number) {
  const completionTokens = plan.completionTokensPerChoice * plan.choiceCount;
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

/** Splits text into at most `count` consecutive pieces that join back to it. */
export function splitIntoPieces(text: string, count: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / count));
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}

/** Content deltas like OpenAI's: every chunk after the first starts with the separating space. */
export function textDeltas(wordCount: number, tokensPerChunk: number): string[] {
  const deltas: string[] = [];
  for (let start = 0; start < wordCount; start += tokensPerChunk) {
    const words = mockWords(start, Math.min(tokensPerChunk, wordCount - start));
    deltas.push(start === 0 ? words : ' ' + words);
  }
  return deltas;
}

export interface CompletionIdentity {
  id: string;
  created: number;
  model: string;
  toolCallId: (choiceIndex: number) => string;
}

export function buildCompletion(identity: CompletionIdentity, plan: CompletionPlan, promptTokens: number) {
  const choices = [];
  for (let index = 0; index < plan.choiceCount; index++) {
    const message = plan.toolCall
      ? {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: identity.toolCallId(index), type: 'function', function: { ...plan.toolCall } }],
          refusal: null,
        }
      : { role: 'assistant', content: mockWords(0, plan.wordCount), refusal: null };
    choices.push({ index, message, logprobs: null, finish_reason: plan.finishReason });
  }
  return {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    choices,
    usage: usageOf(plan, promptTokens),
    system_fingerprint: 'fp_mock',
  };
}

/**
 * A stream is rendered as chunk "tails": the JSON after `"choices":` to the end of the chunk.
 * Tails do not depend on the request id, time or model, so text answers of the same shape share
 * them, and each request only glues its own head in front.
 */
export interface StreamScript {
  opening: string[];
  content: string[];
  closing: string[];
}

function choiceTail(index: number, delta: object, finishReason: string | null): string {
  return `[${JSON.stringify({ index, delta, logprobs: null, finish_reason: finishReason })}]}`;
}

export function buildStreamScript(plan: CompletionPlan, toolCallId: (choiceIndex: number) => string): StreamScript {
  const script: StreamScript = { opening: [], content: [], closing: [] };
  const choiceIndexes = Array.from({ length: plan.choiceCount }, (_, index) => index);
  const toolCall = plan.toolCall;
  for (const index of choiceIndexes) {
    const opening = toolCall
      ? {
          role: 'assistant',
          content: null,
          tool_calls: [{ index: 0, id: toolCallId(index), type: 'function', function: { name: toolCall.name, arguments: '' } }],
          refusal: null,
        }
      : { role: 'assistant', content: '', refusal: null };
    script.opening.push(choiceTail(index, opening, null));
  }
  const deltas = toolCall
    ? splitIntoPieces(toolCall.arguments, TOOL_ARGUMENT_PIECES).map((piece) => ({ tool_calls: [{ index: 0, function: { arguments: piece } }] }))
    : textDeltas(plan.wordCount, plan.tokensPerChunk).map((content) => ({ content }));
  for (const delta of deltas) {
    for (const index of choiceIndexes) script.content.push(choiceTail(index, delta, null));
  }
  for (const index of choiceIndexes) script.closing.push(choiceTail(index, {}, plan.finishReason));
  return script;
}

export function chunkHead(identity: Pick<CompletionIdentity, 'id' | 'created' | 'model'>): string {
  return (
    `{"id":${JSON.stringify(identity.id)},"object":"chat.completion.chunk","created":${identity.created},` +
    `"model":${JSON.stringify(identity.model)},"system_fingerprint":"fp_mock","choices":`
  );
}

function renderEvents(head: string, tails: string[], from = 0, to = tails.length): string {
  let text = '';
  for (let index = from; index < to; index++) text += 'data: ' + head + tails[index] + '\n\n';
  return text;
}

export function errorEnvelope(message: string, type = 'invalid_request_error', code: string | null = null): string {
  return JSON.stringify({ error: { message, type, param: null, code } });
}

/** The envelope OpenAI sends for a status, so clients that branch on `type`/`code` see the real thing. */
export function defaultFailureBody(status: number): string {
  if (status === 429) return errorEnvelope('Rate limit reached (mock upstream).', 'requests', 'rate_limit_exceeded');
  if (status === 401) return errorEnvelope('Incorrect API key provided (mock upstream).', 'invalid_request_error', 'invalid_api_key');
  if (status >= 500) return errorEnvelope('The server had an error while processing your request (mock upstream).', 'server_error');
  return errorEnvelope(`Mock upstream failure with status ${status}.`);
}

// ---------------------------------------------------------------------------------------------
// Validation of scenarios arriving as text (the x-mock-scenario header, the CLI's --scenario).

const NUMBER_FIELDS = ['latencyMs', 'chunkCount', 'tokensPerChunk', 'chunkGapMs', 'completionTokens'] as const;
const FAILURE_KINDS = ['status', 'hang', 'hang-mid-stream', 'close-mid-stream', 'garbage', 'reset'];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireWholeNumber(value: unknown, field: string, minimum: number): void {
  if (!Number.isInteger(value) || (value as number) < minimum) {
    throw new TypeError(`${field} must be a whole number of at least ${minimum}`);
  }
}

function checkFailure(failure: unknown): void {
  if (!isPlainObject(failure) || !FAILURE_KINDS.includes(failure.kind as string)) {
    throw new TypeError(`failure.kind must be one of ${FAILURE_KINDS.join(', ')}`);
  }
  if (failure.kind === 'status') {
    requireWholeNumber(failure.status, 'failure.status', 200);
    if ((failure.status as number) > 599) throw new TypeError('failure.status must be at most 599');
    if (failure.body !== undefined && typeof failure.body !== 'string') throw new TypeError('failure.body must be a string');
    const headers = failure.headers;
    if (headers !== undefined && (!isPlainObject(headers) || Object.values(headers).some((value) => typeof value !== 'string'))) {
      throw new TypeError('failure.headers must be an object of strings');
    }
  }
  if (failure.kind === 'hang-mid-stream' || failure.kind === 'close-mid-stream') {
    requireWholeNumber(failure.afterChunks, 'failure.afterChunks', 0);
  }
}

/** Checks untrusted scenario JSON; throws a TypeError naming the bad field. */
export function parseMockScenario(value: unknown): MockScenario {
  if (!isPlainObject(value)) throw new TypeError('the scenario must be a JSON object');
  const known = new Set<string>([...NUMBER_FIELDS, 'failure', 'toolCall', 'usageInStream']);
  for (const field of Object.keys(value)) {
    if (!known.has(field)) throw new TypeError(`unknown scenario field "${field}"`);
  }
  for (const field of NUMBER_FIELDS) {
    if (value[field] !== undefined) requireWholeNumber(value[field], field, field === 'tokensPerChunk' ? 1 : 0);
  }
  if (value.usageInStream !== undefined && typeof value.usageInStream !== 'boolean') {
    throw new TypeError('usageInStream must be true or false');
  }
  const toolCall = value.toolCall;
  if (toolCall !== undefined && (!isPlainObject(toolCall) || typeof toolCall.name !== 'string' || typeof toolCall.arguments !== 'string')) {
    throw new TypeError('toolCall must be {"name": string, "arguments": string}');
  }
  // null lets a header switch off the server's failure for one request (spreading undefined over it).
  if (value.failure === null) return { ...value, failure: undefined } as MockScenario;
  if (value.failure !== undefined) checkFailure(value.failure);
  return value as MockScenario;
}

// ---------------------------------------------------------------------------------------------
// The server.

const MODELS_BODY = JSON.stringify({
  object: 'list',
  data: [{ id: 'mock-model', object: 'model', created: Math.floor(Date.now() / 1000), owned_by: 'mock' }],
});
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

function sendJson(response: http.ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  response.end(body);
}

function routeOf(method: string | undefined, url: string | undefined): 'chat' | 'models' | 'not-found' {
  const path = (url ?? '').split('?', 1)[0];
  if (method === 'POST' && (path === '/v1/chat/completions' || path === '/chat/completions')) return 'chat';
  if (method === 'GET' && (path === '/v1/models' || path === '/models')) return 'models';
  return 'not-found';
}

function parseBody(text: string): { ok: true; value: any } | { ok: false; value?: undefined } {
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
   * Ends the connection on the mock's own initiative: a reset at once; a close only after what was
   * written has been flushed, so the client sees the promised chunks and then the cut.
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
  // Tool call ids are unique per request, so only text answers can share a script.
  if (plan.toolCall) return buildStreamScript(plan, identity.toolCallId);
  const key = `${plan.choiceCount}:${plan.wordCount}:${plan.tokensPerChunk}:${plan.finishReason}`;
  let script = state.streamScripts.get(key);
  if (!script) {
    if (state.streamScripts.size >= MAX_CACHED_STREAM_SCRIPTS) state.streamScripts.clear();
    script = buildStreamScript(plan, identity.toolCallId);
    state.streamScripts.set(key, script);
  }
  return script;
}

function answerStream(exchange: Exchange, state: ServerState, request: ChatRequestFields, scenario: ResolvedScenario, identity: CompletionIdentity): void {
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
  const interrupt = (kind: 'hang-mid-stream' | 'close-mid-stream') => {
    if (kind === 'close-mid-stream') exchange.destroy();
  };

  response.writeHead(200, SSE_HEADERS);
  if (scenario.chunkGapMs <= 0) {
    const started = renderEvents(head, script.opening) + renderEvents(head, script.content, 0, contentToSend);
    if (!cut) return void response.end(started + ending());
    response.write(started);
    return interrupt(cut.kind);
  }
  response.write(renderEvents(head, script.opening));
  let sent = 0;
  const finish = () => (cut ? interrupt(cut.kind) : void response.end(ending()));
  const sendNext = () => {
    response.write(renderEvents(head, script.content, sent, ++sent));
    if (sent < contentToSend) exchange.after(scenario.chunkGapMs, sendNext);
    else finish();
  };
  if (contentToSend === 0) finish();
  else exchange.after(scenario.chunkGapMs, sendNext);
}

function answerChat(exchange: Exchange, state: ServerState, body: Record<string, any>, scenario: ResolvedScenario): void {
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
    if (failure?.kind !== 'hang-mid-stream' && failure?.kind !== 'close-mid-stream') return sendJson(response, 200, text);
    // A non-stream answer "mid-stream" is a truncated body: the promised length never arrives.
    const bytes = Buffer.from(text);
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
    response.write(bytes.subarray(0, bytes.length >> 1));
    if (failure.kind === 'close-mid-stream') exchange.destroy();
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

function record(state: ServerState, request: http.IncomingMessage, body: unknown, receivedAt: number): RecordedRequest | undefined {
  if (!state.recordRequests) return undefined;
  const entry: RecordedRequest = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body, receivedAt, aborted: false };
  state.requests.push(entry);
  if (state.requests.length > MAX_RECORDED_REQUESTS) state.requests.splice(0, state.requests.length - MAX_RECORDED_REQUESTS);
  return entry;
}

function handle(state: ServerState, request: http.IncomingMessage, response: http.ServerResponse, rawBody: string, receivedAt: number): void {
  const parsed = parseBody(rawBody);
  const recordedBody = parsed.ok ? parsed.value : rawBody === '' ? undefined : rawBody;
  const exchange = new Exchange(response, record(state, request, recordedBody, receivedAt), () => state.closing);
  const route = routeOf(request.method, request.url);
  if (route === 'models') return sendJson(response, 200, MODELS_BODY);
  if (route === 'not-found') return sendJson(response, 404, errorEnvelope(`Invalid URL (${request.method} ${request.url})`));
  if (!parsed.ok || !isPlainObject(parsed.value)) {
    return sendJson(response, 400, errorEnvelope('We could not parse the JSON body of your request: expected a JSON object.'));
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
    return sendJson(response, 500, errorEnvelope(`Mock upstream: the scenario selector threw: ${String(error)}`, 'server_error'));
  }
  answerChat(exchange, state, parsed.value, resolveScenario({ ...base, ...override }));
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

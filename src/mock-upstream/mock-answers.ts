/**
 * The pure half of the fake upstream: reading a chat request, planning the answer and rendering
 * it as a whole completion or as cached SSE chunks. Deterministic, so tests can assert exact text.
 */
import type { ResolvedScenario } from './mock-scenario.js';
import { schemaInstance } from './mock-schema-instance.js';

const MAX_CHOICES = 128;
const TOOL_ARGUMENT_PIECES = 4;
const LOREM = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut ' +
  'labore et dolore magna aliqua'
).split(' ');

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
  /** `tool_choice` required or named: the tool call a real model would be forced to make. */
  forcedToolCall: { name: string; arguments: string } | undefined;
  /** `response_format` json_schema or json_object: the JSON text to answer with. */
  structuredText: string | undefined;
}

function functionTools(tools: unknown): Array<{ name: string; parameters: unknown }> {
  if (!Array.isArray(tools)) return [];
  return tools
    .filter((tool) => tool?.type === 'function' && typeof tool.function?.name === 'string')
    .map((tool) => ({ name: tool.function.name as string, parameters: tool.function.parameters }));
}

/** The fields of an OpenAI chat request the mock reads; each is tested before it is used. */
export interface MockChatBody {
  model?: unknown;
  stream?: unknown;
  stream_options?: { include_usage?: unknown } | null;
  n?: unknown;
  max_completion_tokens?: unknown;
  max_tokens?: unknown;
  messages?: unknown;
  tools?: unknown;
  tool_choice?: string | { function?: { name?: unknown } | null } | null;
  response_format?: { type?: unknown; json_schema?: { schema?: unknown } | null } | null;
}

/** The tool a request forces: the named one, or the first tool when any call is required. */
function forcedToolCallOf(body: MockChatBody): ChatRequestFields['forcedToolCall'] {
  const tools = functionTools(body.tools);
  const choice = body.tool_choice;
  const named =
    typeof choice === 'object' && typeof choice?.function?.name === 'string' ? choice.function.name : undefined;
  const tool =
    named !== undefined ? tools.find((entry) => entry.name === named) : choice === 'required' ? tools[0] : undefined;
  if (!tool) return undefined;
  // A tool without parameters takes an empty object, as OpenAI sends.
  const parameters = tool.parameters ?? { type: 'object', properties: {} };
  return { name: tool.name, arguments: JSON.stringify(schemaInstance(parameters)) };
}

function structuredTextOf(body: MockChatBody): string | undefined {
  const format = body.response_format;
  if (format?.type === 'json_schema') return JSON.stringify(schemaInstance(format.json_schema?.schema ?? {}));
  if (format?.type === 'json_object') return JSON.stringify({ answer: mockWords(0, 5) });
  return undefined;
}

function positiveInteger(value: unknown): number | undefined {
  return Number.isInteger(value) && (value as number) > 0 ? (value as number) : undefined;
}

export function readChatRequest(body: MockChatBody): ChatRequestFields {
  return {
    model: typeof body.model === 'string' ? body.model : 'mock-model',
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true,
    choiceCount: Math.min(positiveInteger(body.n) ?? 1, MAX_CHOICES),
    maxTokens: positiveInteger(body.max_completion_tokens) ?? positiveInteger(body.max_tokens),
    promptTokens: countPromptWords(body.messages),
    forcedToolCall: forcedToolCallOf(body),
    structuredText: structuredTextOf(body),
  };
}

export interface CompletionPlan {
  choiceCount: number;
  /** Words of text per choice; 0 for a tool call or a structured answer. */
  wordCount: number;
  /** A structured answer's JSON text, sent instead of lorem words. */
  text: string | undefined;
  tokensPerChunk: number;
  toolCall: { name: string; arguments: string } | undefined;
  finishReason: 'stop' | 'length' | 'tool_calls';
  completionTokensPerChoice: number;
}

export function planCompletion(request: ChatRequestFields, scenario: ResolvedScenario): CompletionPlan {
  const { choiceCount } = request;
  const { tokensPerChunk } = scenario;
  // The scenario's tool call is a test's explicit order; a forced tool choice comes next.
  const toolCall = scenario.toolCall ?? request.forcedToolCall;
  if (toolCall) {
    // Roughly four characters per token, the usual rule of thumb for JSON arguments.
    const toolTokens = Math.max(1, Math.ceil(toolCall.arguments.length / 4));
    return {
      choiceCount,
      wordCount: 0,
      text: undefined,
      tokensPerChunk,
      toolCall,
      finishReason: 'tool_calls',
      completionTokensPerChoice: toolTokens,
    };
  }
  if (request.structuredText !== undefined) {
    return {
      choiceCount,
      wordCount: 0,
      text: request.structuredText,
      tokensPerChunk,
      toolCall: undefined,
      finishReason: 'stop',
      completionTokensPerChoice: Math.max(1, Math.ceil(request.structuredText.length / 4)),
    };
  }
  const wanted = request.stream ? scenario.chunkCount * tokensPerChunk : scenario.completionTokens;
  const wordCount = request.maxTokens === undefined ? wanted : Math.min(wanted, request.maxTokens);
  const finishReason = wordCount < wanted ? 'length' : 'stop';
  return {
    choiceCount,
    wordCount,
    text: undefined,
    tokensPerChunk,
    toolCall: undefined,
    finishReason,
    completionTokensPerChoice: wordCount,
  };
}

export function usageOf(plan: CompletionPlan, promptTokens: number) {
  const completionTokens = plan.completionTokensPerChoice * plan.choiceCount;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
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
      : { role: 'assistant', content: plan.text ?? mockWords(0, plan.wordCount), refusal: null };
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
          tool_calls: [
            { index: 0, id: toolCallId(index), type: 'function', function: { name: toolCall.name, arguments: '' } },
          ],
          refusal: null,
        }
      : { role: 'assistant', content: '', refusal: null };
    script.opening.push(choiceTail(index, opening, null));
  }
  const deltas = toolCall
    ? splitIntoPieces(toolCall.arguments, TOOL_ARGUMENT_PIECES).map((piece) => ({
        tool_calls: [{ index: 0, function: { arguments: piece } }],
      }))
    : plan.text !== undefined
      ? splitIntoPieces(plan.text, TOOL_ARGUMENT_PIECES).map((content) => ({ content }))
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

export function renderEvents(head: string, tails: string[], from = 0, to = tails.length): string {
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
  if (status === 401)
    return errorEnvelope('Incorrect API key provided (mock upstream).', 'invalid_request_error', 'invalid_api_key');
  if (status >= 500)
    return errorEnvelope('The server had an error while processing your request (mock upstream).', 'server_error');
  return errorEnvelope(`Mock upstream failure with status ${status}.`);
}

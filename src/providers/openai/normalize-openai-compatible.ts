import type { ChatCompletion, ChatCompletionChunk, Usage } from '../../shared/openai-types.js';
import type { TranslationContext } from '../provider-adapter.js';
import type { OpenAIWireDelta, OpenAIWireMessage, OpenAIWireUsage } from './openai-chunk-schema.js';

/**
 * Quirks of OpenAI-compatible providers, seen in their recorded traffic, smoothed into the shape
 * OpenAI clients expect. Each rule names who needs it; none changes an answer that is already
 * standard, so every preset shares them without branching on the provider.
 */

type Delta = ChatCompletionChunk['choices'][number]['delta'];
type ToolCallDelta = NonNullable<Delta['tool_calls']>[number];
type WireToolCall = NonNullable<OpenAIWireDelta['tool_calls']>[number];
type Message = ChatCompletion['choices'][number]['message'];

/**
 * One streamed delta as the chunk the gateway sends: a shallow copy of the checked wire delta
 * (fields it does not read go along untouched) with the quirks smoothed.
 */
export function normalizeDelta(wire: OpenAIWireDelta): Delta {
  const { content, tool_calls: toolCalls, ...rest } = wire;
  const delta: Delta = rest;
  if (typeof content === 'string' || content === null) delta.content = content;
  else if (content !== undefined) splitThinkingParts(content, delta);
  moveReasoningContent(delta);
  // Mistral sends whole tool calls without `index` or `type`; OpenAI clients key deltas on index.
  if (toolCalls) delta.tool_calls = toolCalls.map(toolCallDelta);
  return delta;
}

function toolCallDelta(call: WireToolCall, position: number): ToolCallDelta {
  const { type, ...rest } = call;
  const index = call.index ?? position;
  return type !== undefined || call.id !== undefined ? { ...rest, index, type: 'function' } : { ...rest, index };
}

/** Checked wire usage as the gateway's: counts a server left out are 0 (total: their sum), then normalized. */
export function readUsage(wire: OpenAIWireUsage): Usage {
  const prompt = wire.prompt_tokens ?? 0;
  const completion = wire.completion_tokens ?? 0;
  return normalizeUsage({
    ...wire,
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: wire.total_tokens ?? prompt + completion,
    prompt_tokens_details: wire.prompt_tokens_details ?? undefined,
    completion_tokens_details: wire.completion_tokens_details ?? undefined,
  });
}

/** One whole answer's message as ours: a shallow copy of the checked wire message, quirks smoothed. */
export function normalizeMessage(wire: OpenAIWireMessage, context: TranslationContext): Message {
  const { content, tool_calls: toolCalls, ...rest } = wire;
  const message: Message = { ...rest, role: 'assistant', content: null };
  if (typeof content === 'string') message.content = content;
  else if (Array.isArray(content)) splitThinkingParts(content, message);
  moveReasoningContent(message);
  // Mistral leaves out a tool call's `type`; an id is made where a server leaves it out.
  if (toolCalls)
    message.tool_calls = toolCalls.map((call) => ({
      ...call,
      id: call.id ?? context.generateId('call_'),
      type: 'function',
    }));
  return message;
}

/** Usage, in place: DeepSeek reports cache hits only as prompt_cache_hit_tokens. */
export function normalizeUsage(usage: Usage): Usage {
  const hits = usage.prompt_cache_hit_tokens;
  if (typeof hits === 'number' && usage.prompt_tokens_details?.cached_tokens === undefined) {
    usage.prompt_tokens_details = { ...(usage.prompt_tokens_details ?? {}), cached_tokens: hits };
  }
  return usage;
}

/** DeepSeek (and vLLM, SGLang) name the reasoning text `reasoning_content`; we call it `reasoning`. */
function moveReasoningContent(target: Record<string, unknown>): void {
  if (typeof target.reasoning_content === 'string' && target.reasoning_content !== '') {
    target.reasoning = (typeof target.reasoning === 'string' ? target.reasoning : '') + target.reasoning_content;
  }
  delete target.reasoning_content;
}

interface ContentChunk {
  type?: string;
  text?: string;
  thinking?: Array<{ type?: string; text?: string }> | string;
}

/**
 * Mistral's Magistral sends `content` as an array of chunks, `{"type":"thinking","thinking":[…]}`
 * while it reasons and `{"type":"text"}` after; OpenAI clients expect a string.
 */
function splitThinkingParts(parts: unknown[], target: Record<string, unknown>): void {
  let reasoning = '';
  let text = '';
  for (const part of parts as ContentChunk[]) {
    if (part?.type === 'thinking') {
      reasoning +=
        typeof part.thinking === 'string'
          ? part.thinking
          : (part.thinking ?? []).map((inner) => inner.text ?? '').join('');
    } else if (part?.type === 'text' && typeof part.text === 'string') {
      text += part.text;
    }
  }
  target.content = text;
  if (reasoning) target.reasoning = (typeof target.reasoning === 'string' ? target.reasoning : '') + reasoning;
}

import type { ChatCompletion, ChatCompletionChunk, Usage } from '../../shared/openai-types.js';

/**
 * Quirks of OpenAI-compatible providers, seen in their recorded traffic, smoothed into the shape
 * OpenAI clients expect. Each rule names who needs it; none changes an answer that is already
 * standard, so every preset shares them without branching on the provider.
 */

type Delta = ChatCompletionChunk['choices'][number]['delta'];
type Message = ChatCompletion['choices'][number]['message'];

/** One streamed delta, in place. */
export function normalizeDelta(delta: Delta): void {
  moveReasoningContent(delta);
  splitThinkingContent(delta);
  const toolCalls = delta.tool_calls as Array<{ index?: number; id?: string; type?: string }> | undefined;
  if (Array.isArray(toolCalls)) {
    toolCalls.forEach((call, position) => {
      // Mistral sends whole tool calls without `index` or `type`; OpenAI clients key deltas on index.
      if (call.index === undefined) call.index = position;
      if (call.id !== undefined && call.type === undefined) call.type = 'function';
    });
  }
}

/** One whole answer's message, in place. */
export function normalizeMessage(message: Message): void {
  moveReasoningContent(message);
  splitThinkingContent(message);
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls as Array<{ type?: string }>)
      if (call.type === undefined) call.type = 'function';
  }
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
function splitThinkingContent(target: Record<string, unknown>): void {
  if (!Array.isArray(target.content)) return;
  let reasoning = '';
  let text = '';
  for (const part of target.content as ContentChunk[]) {
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

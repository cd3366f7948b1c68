import type { ChatCompletion, Usage } from '../../shared/openai-types.js';
import { copyCost } from '../engine/answer-cost.js';
import type { MessageContentBlock, MessageObject, MessageUsage } from './messages-types.js';

export function messageStopReason(
  finishReason: string | null | undefined,
  stopped: boolean,
): MessageObject['stop_reason'] {
  switch (finishReason) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    case null:
    case undefined:
      return null;
    default:
      return stopped ? 'stop_sequence' : 'end_turn';
  }
}

/** Chat's prompt_tokens includes cached input; Anthropic's input_tokens is only the uncached rest. */
export function messageUsage(usage: Usage | null | undefined): MessageUsage {
  const cached = usage?.prompt_tokens_details?.cached_tokens;
  const written = usage?.prompt_tokens_details?.cache_write_tokens;
  const uncached = (usage?.prompt_tokens ?? 0) - (cached ?? 0) - (written ?? 0);
  const result: MessageUsage = {
    input_tokens: Math.max(0, uncached),
    output_tokens: usage?.completion_tokens ?? 0,
  };
  if (typeof cached === 'number') result.cache_read_input_tokens = cached;
  if (typeof written === 'number') result.cache_creation_input_tokens = written;
  return copyCost(result, usage);
}

/** Tool arguments are a JSON string in chat and an object in Anthropic's format. */
function parseToolInput(argumentsText: string): unknown {
  if (argumentsText.trim() === '') return {};
  try {
    return JSON.parse(argumentsText);
  } catch {
    return { _raw: argumentsText };
  }
}

/** A whole chat answer → an Anthropic `message`. */
export function chatToMessage(completion: ChatCompletion, id: string): MessageObject {
  const choice = completion.choices[0];
  const message = choice?.message;
  const content: MessageContentBlock[] = [];
  if (typeof message?.reasoning === 'string' && message.reasoning !== '')
    content.push({ type: 'thinking', thinking: message.reasoning, signature: '' });
  if (typeof message?.content === 'string' && message.content !== '')
    content.push({ type: 'text', text: message.content });
  for (const call of message?.tool_calls ?? [])
    content.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: parseToolInput(call.function.arguments),
    });
  return {
    id,
    type: 'message',
    role: 'assistant',
    model: completion.model,
    content,
    stop_reason: messageStopReason(choice?.finish_reason ?? 'stop', false),
    stop_sequence: null,
    usage: messageUsage(completion.usage),
  };
}

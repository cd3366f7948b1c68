import { InvalidRequestError } from '../../shared/errors.js';
import type { ChatCompletionRequest, ChatMessage, ContentPart } from '../../shared/openai-types.js';
import type { AnthropicBlock, MessagesRequest } from './messages-types.js';

/** Anthropic thinking budgets → OpenAI reasoning effort, so any provider with reasoning can honour it. */
function effortFor(budget: number): 'low' | 'medium' | 'high' {
  if (budget <= 2048) return 'low';
  if (budget <= 8192) return 'medium';
  return 'high';
}

/**
 * An Anthropic Messages request → one chat request. Pure; throws InvalidRequestError naming the
 * field for what cannot be translated. Thinking blocks of earlier assistant turns are dropped (a
 * provider's reasoning state cannot be handed to another).
 */
export function messagesToChat(request: MessagesRequest): ChatCompletionRequest {
  const messages: ChatMessage[] = [];
  const system =
    typeof request.system === 'string'
      ? request.system
      : (request.system ?? []).map((block) => block.text ?? '').join('\n');
  if (system !== '') messages.push({ role: 'system', content: system });
  request.messages.forEach((message, index) => messages.push(...convertMessage(message, `messages.${index}`)));

  const chat: ChatCompletionRequest = { model: request.model, messages, max_tokens: request.max_tokens };
  if (request.tools && request.tools.length > 0) {
    chat.tools = request.tools.map((tool, index) => {
      if (tool.type !== undefined && tool.type !== 'custom')
        throw new InvalidRequestError(
          `tools.${index}: server tool '${tool.type}' is not supported by the gateway; declare client tools with name and input_schema.`,
          `tools.${index}.type`,
          'unsupported_tool_type',
        );
      return {
        type: 'function' as const,
        function: {
          name: tool.name,
          ...(tool.description ? { description: tool.description } : {}),
          parameters: tool.input_schema ?? { type: 'object' },
        },
      };
    });
  }
  const choice = request.tool_choice;
  if (choice && chat.tools) {
    if (choice.type === 'auto') chat.tool_choice = 'auto';
    else if (choice.type === 'any') chat.tool_choice = 'required';
    else if (choice.type === 'none') chat.tool_choice = 'none';
    else if (choice.type === 'tool') {
      if (!choice.name)
        throw new InvalidRequestError(
          'tool_choice.name: Field required',
          'tool_choice.name',
          'missing_required_parameter',
        );
      chat.tool_choice = { type: 'function', function: { name: choice.name } };
    }
    if (choice.disable_parallel_tool_use === true) chat.parallel_tool_calls = false;
  }
  if (request.stop_sequences && request.stop_sequences.length > 0) chat.stop = request.stop_sequences;
  if (typeof request.temperature === 'number') chat.temperature = request.temperature;
  if (typeof request.top_p === 'number') chat.top_p = request.top_p;
  if (request.thinking?.type === 'enabled') chat.reasoning_effort = effortFor(request.thinking.budget_tokens ?? 1024);
  if (typeof request.metadata?.user_id === 'string') chat.user = request.metadata.user_id;
  for (const field of ['provider', 'models'] as const) if (request[field] !== undefined) chat[field] = request[field];
  if (request.stream) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  return chat;
}

function convertMessage(message: MessagesRequest['messages'][number], where: string): ChatMessage[] {
  if (typeof message.content === 'string') return [{ role: message.role, content: message.content }];
  if (message.role === 'assistant') {
    let text = '';
    const calls: NonNullable<ChatMessage['tool_calls']> = [];
    message.content.forEach((block, index) => {
      if (block.type === 'text') text += block.text ?? '';
      else if (block.type === 'tool_use')
        calls.push({
          id: block.id ?? '',
          type: 'function',
          function: { name: block.name ?? '', arguments: JSON.stringify(block.input ?? {}) },
        });
      else if (block.type !== 'thinking' && block.type !== 'redacted_thinking')
        throw unsupportedBlock(block, `${where}.content.${index}`);
    });
    return [
      {
        role: 'assistant',
        content: text === '' && calls.length > 0 ? null : text,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      },
    ];
  }
  // A user turn: tool results become tool messages (first, as chat expects them right after the call), the rest one user message.
  const out: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  message.content.forEach((block, index) => {
    const at = `${where}.content.${index}`;
    if (block.type === 'tool_result') {
      if (!block.tool_use_id)
        throw new InvalidRequestError(
          `${at}.tool_use_id: Field required`,
          `${at}.tool_use_id`,
          'missing_required_parameter',
        );
      const content =
        typeof block.content === 'string'
          ? block.content
          : (block.content ?? []).map((inner) => inner.text ?? '').join('');
      out.push({
        role: 'tool',
        tool_call_id: block.tool_use_id,
        content: block.is_error ? `Error: ${content}` : content,
      });
    } else parts.push(convertUserBlock(block, at));
  });
  if (parts.length > 0)
    out.push({
      role: 'user',
      content: parts.every((part) => part.type === 'text')
        ? parts.map((part) => (part as { text: string }).text).join('')
        : parts,
    });
  return out;
}

function convertUserBlock(block: AnthropicBlock, at: string): ContentPart {
  if (block.type === 'text') return { type: 'text', text: block.text ?? '' };
  if (block.type === 'image' || block.type === 'document') {
    const source = block.source;
    const url =
      source?.type === 'base64' && source.data
        ? `data:${source.media_type ?? 'application/octet-stream'};base64,${source.data}`
        : source?.type === 'url'
          ? source.url
          : undefined;
    if (!url) throw new InvalidRequestError(`${at}.source: expected a base64 or url source`, `${at}.source`);
    if (block.type === 'image') return { type: 'image_url', image_url: { url } };
    return { type: 'file', file: { file_data: url } };
  }
  throw unsupportedBlock(block, at);
}

function unsupportedBlock(block: AnthropicBlock, at: string): InvalidRequestError {
  return new InvalidRequestError(
    `${at}.type: content blocks of type '${block.type}' are not supported here`,
    `${at}.type`,
    'unsupported_parameter',
  );
}

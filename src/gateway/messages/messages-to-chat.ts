import { InvalidRequestError } from '../../shared/errors.js';
import type { ChatCompletionRequest, ChatMessage, ContentPart } from '../../shared/openai-types.js';
import type { AnthropicBlock, MessagesRequest } from './messages-types.js';

/** Anthropic thinking budgets → OpenAI reasoning effort, so any provider with reasoning can honour it. */
function effortFor(budget: number): 'low' | 'medium' | 'high' {
  if (budget <= 2048) return 'low';
  if (budget <= 8192) return 'medium';
  return 'high';
}

/** The Messages fields this translation reads; any other top-level field is named as dropped. */
const TRANSLATED_FIELDS = new Set([
  'model',
  'max_tokens',
  'system',
  'messages',
  'tools',
  'tool_choice',
  'stop_sequences',
  'temperature',
  'top_p',
  'thinking',
  'output_config',
  'metadata',
  'stream',
  // The gateway's own routing fields.
  'provider',
  'models',
  // usage: {include: true} asks for the cost in the answer (read by the engine).
  'usage',
]);

export interface MessagesTranslation {
  chat: ChatCompletionRequest;
  /** What chat cannot express, by parameter name (x-gateway-dropped-params). */
  dropped: string[];
  /** The hosted search tool the client offered, when it did: dropped when no model may search. */
  optionalSearchParam?: string;
}

/**
 * An Anthropic Messages request → one chat request. Pure. What chat cannot express (cache_control,
 * server tools other than web search, top_k, context_management, unknown blocks) is dropped and
 * named; under `strict` those throw InvalidRequestError naming the field instead. Thinking blocks
 * of earlier assistant turns are dropped silently: a signature only its own provider can verify.
 */
export function messagesToChat(request: MessagesRequest, options: { strict?: boolean } = {}): MessagesTranslation {
  const dropped: string[] = [];
  const drop = (name: string, error: () => InvalidRequestError) => {
    if (options.strict) throw error();
    if (!dropped.includes(name)) dropped.push(name);
  };
  for (const field of Object.keys(request))
    if (!TRANSLATED_FIELDS.has(field)) drop(field, () => unsupportedField(field));
  if (JSON.stringify(request).includes('"cache_control"'))
    drop('cache_control', () => unsupportedField('cache_control'));

  const messages: ChatMessage[] = [];
  const system = textOf(request.system);
  if (system !== '') messages.push({ role: 'system', content: system });
  request.messages.forEach((message, index) => messages.push(...convertMessage(message, `messages.${index}`, drop)));

  const chat: ChatCompletionRequest = { model: request.model, messages, max_tokens: request.max_tokens };
  let optionalSearchParam: string | undefined;
  const tools: NonNullable<ChatCompletionRequest['tools']> = [];
  (request.tools ?? []).forEach((tool, index) => {
    if (tool.type === undefined || tool.type === 'custom') {
      tools.push({
        type: 'function' as const,
        function: {
          name: tool.name,
          ...(tool.description ? { description: tool.description } : {}),
          parameters: tool.input_schema ?? { type: 'object' },
        },
      });
      return;
    }
    const name = `tools.${index}:${tool.type}`;
    // Anthropic's hosted search maps onto the model's native search where it has one.
    if (tool.type.startsWith('web_search_') && !options.strict) {
      chat.enable_search = true;
      optionalSearchParam ??= name;
      return;
    }
    drop(
      name,
      () =>
        new InvalidRequestError(
          `tools.${index}: server tool '${tool.type}' is not supported by the gateway; declare client tools with name and input_schema.`,
          `tools.${index}.type`,
          'unsupported_tool_type',
        ),
    );
  });
  if (tools.length > 0) chat.tools = tools;
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
  const effort = reasoningEffort(request, drop);
  if (effort) chat.reasoning_effort = effort;
  const format = request.output_config?.format;
  if (format?.type === 'json_schema' && format.schema)
    chat.response_format = { type: 'json_schema', json_schema: { name: 'output', schema: format.schema } };
  if (typeof request.metadata?.user_id === 'string') chat.user = request.metadata.user_id;
  for (const field of ['provider', 'models'] as const) if (request[field] !== undefined) chat[field] = request[field];
  if (request.stream) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  return { chat, dropped, ...(optionalSearchParam ? { optionalSearchParam } : {}) };
}

/**
 * Thinking and effort → chat `reasoning_effort`. `output_config.effort` says it outright; an
 * `enabled` budget is turned into an effort; `adaptive` leaves the choice to the model (the
 * provider's default) unless an effort is given; `disabled` asks for none.
 */
function reasoningEffort(request: MessagesRequest, drop: Drop): string | undefined {
  const effort = request.output_config?.effort;
  const thinking = request.thinking;
  if (thinking && !['enabled', 'disabled', 'adaptive'].includes(thinking.type))
    drop('thinking.type', () => unsupportedField('thinking.type'));
  if (thinking?.type === 'disabled') return undefined;
  if (typeof effort === 'string') return effort === 'max' ? 'high' : effort;
  if (thinking?.type === 'enabled') return effortFor(thinking.budget_tokens ?? 1024);
  return undefined;
}

type Drop = (name: string, error: () => InvalidRequestError) => void;

function unsupportedField(field: string): InvalidRequestError {
  return new InvalidRequestError(
    `'${field}' cannot be expressed on this model's API; remove it or pick a model that speaks Anthropic Messages.`,
    field,
    'unsupported_parameter',
  );
}

/** A system prompt or a system message's content: a string or text blocks. */
function textOf(content: string | AnthropicBlock[] | undefined): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((block) => block.text ?? '').join('\n');
}

function convertMessage(message: MessagesRequest['messages'][number], where: string, drop: Drop): ChatMessage[] {
  // Claude Code sends mid-conversation system messages; chat keeps them in place.
  if (message.role === 'system') return [{ role: 'system', content: textOf(message.content) }];
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
        drop(`content:${block.type}`, () => unsupportedBlock(block, `${where}.content.${index}`));
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
    } else {
      const part = convertUserBlock(block, at);
      if (part) parts.push(part);
      else drop(`content:${block.type}`, () => unsupportedBlock(block, at));
    }
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

/** A user block as a chat part; undefined for a block type chat has no part for. */
function convertUserBlock(block: AnthropicBlock, at: string): ContentPart | undefined {
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
  return undefined;
}

function unsupportedBlock(block: AnthropicBlock, at: string): InvalidRequestError {
  return new InvalidRequestError(
    `${at}.type: content blocks of type '${block.type}' are not supported here`,
    `${at}.type`,
    'unsupported_parameter',
  );
}

import { InvalidRequestError } from '../../shared/errors.js';
import type { ChatCompletionRequest, ChatMessage } from '../../shared/openai-types.js';

interface OllamaMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  images?: string[];
  tool_calls?: Array<{ function: { name: string; arguments: unknown } }>;
  tool_name?: string;
}

export interface OllamaRequestConversion {
  body: Record<string, unknown>;
  warnings: string[];
}

/** OpenAI sampling parameters → Ollama `options` names. */
const OPTION_NAMES: Array<[keyof ChatCompletionRequest, string]> = [
  ['temperature', 'temperature'],
  ['top_p', 'top_p'],
  ['seed', 'seed'],
  ['frequency_penalty', 'frequency_penalty'],
  ['presence_penalty', 'presence_penalty'],
];
const HANDLED = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'temperature',
  'top_p',
  'seed',
  'frequency_penalty',
  'presence_penalty',
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'n',
  'tools',
  'tool_choice',
  'response_format',
  'reasoning_effort',
  'enable_search',
  'models',
  'provider',
  'route',
  'transforms',
]);

/** An OpenAI chat request → Ollama's native `/api/chat` body. Pure. */
export function convertToOllamaRequest(request: ChatCompletionRequest, upstreamModel: string): OllamaRequestConversion {
  const warnings: string[] = [];
  if (request.enable_search)
    throw new InvalidRequestError('enable_search is not available on Ollama.', 'enable_search', 'search_unsupported');
  const body: Record<string, unknown> = {
    model: upstreamModel,
    messages: convertMessages(request.messages),
    stream: request.stream === true,
  };
  const options: Record<string, unknown> = {};
  for (const [from, to] of OPTION_NAMES)
    if (request[from] !== undefined && request[from] !== null) options[to] = request[from];
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens !== undefined && maxTokens !== null) options.num_predict = maxTokens;
  if (request.stop !== undefined && request.stop !== null)
    options.stop = Array.isArray(request.stop) ? request.stop : [request.stop];
  if (Object.keys(options).length > 0) body.options = options;
  if (request.tools && request.tools.length > 0 && request.tool_choice !== 'none') {
    body.tools = request.tools;
    if (request.tool_choice !== undefined && request.tool_choice !== 'auto')
      warnings.push('tool_choice is not supported by Ollama; the model decides whether to call a tool');
  }
  if (request.response_format?.type === 'json_object') body.format = 'json';
  else if (request.response_format?.type === 'json_schema')
    body.format = request.response_format.json_schema?.schema ?? 'json';
  if (typeof request.reasoning_effort === 'string') body.think = request.reasoning_effort !== 'none';
  for (const field of Object.keys(request))
    if (!HANDLED.has(field)) warnings.push(`${field} is not supported by Ollama and was ignored`);
  return { body, warnings };
}

function convertMessages(messages: ChatMessage[]): OllamaMessage[] {
  // Ollama names a tool result by the tool's name, OpenAI by the call id: look the name up.
  const toolNames = new Map<string, string>();
  return messages.map((message, index) => {
    const where = `messages[${index}]`;
    const role = message.role === 'developer' ? 'system' : message.role;
    const converted: OllamaMessage = { role, content: '' };
    if (typeof message.content === 'string') converted.content = message.content;
    else if (Array.isArray(message.content)) {
      message.content.forEach((part, partIndex) => {
        if (part.type === 'text') converted.content += part.text;
        else if (part.type === 'image_url') {
          const match = /^data:image\/[a-z+.-]+;base64,(.*)$/s.exec(part.image_url.url);
          if (!match)
            throw new InvalidRequestError(
              'Ollama takes images as base64 data URLs, not as links.',
              `${where}.content[${partIndex}].image_url.url`,
              'unsupported_image_url',
            );
          (converted.images ??= []).push(match[1]!);
        } else
          throw new InvalidRequestError(
            `Content type '${part.type}' is not supported by Ollama.`,
            `${where}.content[${partIndex}]`,
            'unsupported_content',
          );
      });
    }
    if (message.tool_calls?.length) {
      converted.tool_calls = message.tool_calls.map((call, callIndex) => {
        toolNames.set(call.id, call.function.name);
        try {
          return {
            function: {
              name: call.function.name,
              arguments: call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments),
            },
          };
        } catch {
          throw new InvalidRequestError(
            'Tool call arguments must be a JSON string.',
            `${where}.tool_calls[${callIndex}].function.arguments`,
          );
        }
      });
    }
    if (role === 'tool' && message.tool_call_id && toolNames.has(message.tool_call_id))
      converted.tool_name = toolNames.get(message.tool_call_id)!;
    return converted;
  });
}

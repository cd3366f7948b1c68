import { InvalidRequestError } from '../../shared/errors.js';
import type { ChatCompletionRequest, ChatMessage, ContentPart } from '../../shared/openai-types.js';
import type { ResponsesContentPart, ResponsesInputItem, ResponsesRequest } from './responses-types.js';
import { convertToolChoice, convertTools, type Drop } from './responses-tools-to-chat.js';
import { flatToolName, type NamespaceMap } from './namespace-tools.js';

/** The Responses fields this translation reads or the gateway itself handles; others are named as dropped. */
const TRANSLATED_FIELDS = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'text',
  'max_output_tokens',
  'temperature',
  'top_p',
  'reasoning',
  'metadata',
  'store',
  'previous_response_id',
  'stream',
  'parallel_tool_calls',
  'user',
  // A caching hint: nothing to translate (chat upstreams other than OpenAI refuse unknown fields).
  'prompt_cache_key',
  // The gateway's own routing fields.
  'provider',
  'models',
  // usage: {include: true} asks for the cost in the answer (read by the engine).
  'usage',
]);

export interface ChatTranslation {
  chat: ChatCompletionRequest;
  /** The conversation so far without instructions (previous turns + this input), kept for previous_response_id. */
  conversation: ChatMessage[];
  /** Input parts the gateway dropped (reasoning items), named for x-gateway-warnings. */
  warnings: string[];
  /** Parameters chat cannot express, by name (x-gateway-dropped-params). */
  dropped: string[];
  /** The hosted search tool offered, when search is optional (dropped and named where no model has it). */
  optionalSearchParam?: string;
  /** Namespace tools offered flat, to split the calls again (namespace-tools.ts). */
  namespaces: NamespaceMap;
}

/**
 * A Responses request (plus the stored conversation of previous_response_id) → one chat request.
 * Pure. What chat cannot express (hosted tools other than web_search, `include`, unknown items
 * and fields) is dropped and named; under `strict` it throws InvalidRequestError naming it.
 */
export function responsesToChat(
  request: ResponsesRequest,
  previous: ChatMessage[] | null,
  options: { strict?: boolean } = {},
): ChatTranslation {
  const warnings: string[] = [];
  const dropped: string[] = [];
  const drop: Drop = (name, error) => {
    if (options.strict) throw error();
    if (!dropped.includes(name)) dropped.push(name);
  };
  for (const field of Object.keys(request))
    if (!TRANSLATED_FIELDS.has(field))
      drop(
        field,
        () => new InvalidRequestError(`'${field}' is not supported on this model.`, field, 'unsupported_parameter'),
      );
  const input = convertInput(request.input, warnings, drop);
  const conversation = [...(previous ?? []), ...input];
  const messages: ChatMessage[] = [];
  if (typeof request.instructions === 'string' && request.instructions !== '')
    messages.push({ role: 'system', content: request.instructions });
  messages.push(...conversation);
  if (messages.length === 0)
    throw new InvalidRequestError("Missing required parameter: 'input'.", 'input', 'missing_required_parameter');

  const chat: ChatCompletionRequest = { model: request.model, messages };
  const { tools, search, namespaces } = convertTools(request.tools ?? [], drop);
  if (tools.length > 0) chat.tools = tools;
  if (search) chat.enable_search = true;
  const toolChoice = convertToolChoice(request.tool_choice, tools.length > 0);
  if (toolChoice !== undefined) chat.tool_choice = toolChoice;
  if (typeof request.parallel_tool_calls === 'boolean' && tools.length > 0)
    chat.parallel_tool_calls = request.parallel_tool_calls;
  const format = request.text?.format;
  if (format?.type === 'json_object') chat.response_format = { type: 'json_object' };
  if (format?.type === 'json_schema') {
    if (!format.name || !format.schema)
      throw new InvalidRequestError(
        "Missing required parameter: 'text.format.name' and 'text.format.schema' are required for json_schema.",
        format.name ? 'text.format.schema' : 'text.format.name',
        'missing_required_parameter',
      );
    chat.response_format = {
      type: 'json_schema',
      json_schema: {
        name: format.name,
        schema: format.schema,
        ...(typeof format.strict === 'boolean' ? { strict: format.strict } : {}),
        ...(format.description ? { description: format.description } : {}),
      },
    };
  }
  if (typeof request.max_output_tokens === 'number') chat.max_completion_tokens = request.max_output_tokens;
  if (typeof request.temperature === 'number') chat.temperature = request.temperature;
  if (typeof request.top_p === 'number') chat.top_p = request.top_p;
  if (request.reasoning?.effort) chat.reasoning_effort = request.reasoning.effort;
  if (request.reasoning?.summary) drop('reasoning.summary', () => unsupported('reasoning.summary'));
  if (request.text?.verbosity) drop('text.verbosity', () => unsupported('text.verbosity'));
  if (typeof request.user === 'string') chat.user = request.user;
  for (const field of ['provider', 'models'] as const) if (request[field] !== undefined) chat[field] = request[field];
  if (request.stream) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  const optional = search && !options.strict ? { optionalSearchParam: search } : {};
  return { chat, conversation, warnings, dropped, namespaces, ...optional };
}

function unsupported(param: string): InvalidRequestError {
  return new InvalidRequestError(`'${param}' is not supported on this model.`, param, 'unsupported_parameter');
}

function convertInput(input: ResponsesRequest['input'], warnings: string[], drop: Drop): ChatMessage[] {
  if (input === undefined) return [];
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  const messages: ChatMessage[] = [];
  input.forEach((item, index) => {
    const where = `input[${index}]`;
    const type = item.type ?? 'message';
    switch (type) {
      case 'message':
        messages.push(convertMessage(item, where));
        return;
      case 'function_call': {
        if (!item.call_id || !item.name)
          throw new InvalidRequestError(
            `Missing required parameter: '${where}.${item.call_id ? 'name' : 'call_id'}'.`,
            `${where}.${item.call_id ? 'name' : 'call_id'}`,
            'missing_required_parameter',
          );
        // A call of a namespace tool is replayed under the flat name the model was offered.
        const name = typeof item.namespace === 'string' ? flatToolName(item.namespace, item.name) : item.name;
        const call = {
          id: item.call_id,
          type: 'function' as const,
          function: { name, arguments: item.arguments ?? '' },
        };
        const last = messages.at(-1);
        // Consecutive calls (and the text just before them) are one assistant turn in chat.
        if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
        else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
        return;
      }
      case 'function_call_output':
        if (!item.call_id)
          throw new InvalidRequestError(
            `Missing required parameter: '${where}.call_id'.`,
            `${where}.call_id`,
            'missing_required_parameter',
          );
        messages.push({ role: 'tool', tool_call_id: item.call_id, content: outputText(item.output) });
        return;
      case 'reasoning':
        // Reasoning is the provider's own state; other providers cannot take it back.
        warnings.push(`${where}: reasoning item dropped`);
        return;
      default:
        drop(
          `input:${type}`,
          () =>
            new InvalidRequestError(
              `Invalid value for '${where}.type': '${type}' items are not supported; send messages, function_call and function_call_output items.`,
              `${where}.type`,
              'unsupported_parameter',
            ),
        );
    }
  });
  return messages;
}

function convertMessage(item: ResponsesInputItem, where: string): ChatMessage {
  const role = item.role;
  if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'developer')
    throw new InvalidRequestError(
      `Invalid value for '${where}.role': ${JSON.stringify(role)}. Supported values are: 'user', 'assistant', 'system', 'developer'.`,
      `${where}.role`,
      'invalid_value',
    );
  if (typeof item.content === 'string') return { role, content: item.content };
  if (!Array.isArray(item.content))
    throw new InvalidRequestError(
      `Missing required parameter: '${where}.content'.`,
      `${where}.content`,
      'missing_required_parameter',
    );
  const parts = item.content.map((part, index) => convertPart(part, `${where}.content[${index}]`));
  if (role !== 'user') {
    const nonText = parts.findIndex((part) => part.type !== 'text');
    if (nonText !== -1)
      throw new InvalidRequestError(
        `Invalid value: '${where}.content[${nonText}]'. Only user messages may carry images or files.`,
        `${where}.content[${nonText}]`,
      );
    return { role, content: parts.map((part) => (part as { text: string }).text).join('') };
  }
  return { role, content: parts };
}

function convertPart(part: ResponsesContentPart, where: string): ContentPart {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return { type: 'text', text: part.text ?? '' };
    case 'refusal':
      return { type: 'text', text: (part as { refusal?: string }).refusal ?? '' };
    case 'input_image':
      if (typeof part.image_url !== 'string' || part.image_url === '')
        throw new InvalidRequestError(
          `Invalid '${where}': images need an image_url (an https or data: URL); file_id is not supported.`,
          `${where}.image_url`,
        );
      return { type: 'image_url', image_url: { url: part.image_url, ...(part.detail ? { detail: part.detail } : {}) } };
    case 'input_file':
      if (typeof part.file_data !== 'string')
        throw new InvalidRequestError(
          `Invalid '${where}': files need file_data; file_id is not supported.`,
          `${where}.file_data`,
        );
      return {
        type: 'file',
        file: { file_data: part.file_data, ...(part.filename ? { filename: part.filename } : {}) },
      };
    default:
      throw new InvalidRequestError(
        `Invalid value for '${where}.type': '${part.type}' content is not supported.`,
        `${where}.type`,
        'unsupported_parameter',
      );
  }
}

function outputText(output: ResponsesInputItem['output']): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map((part) => part.text ?? '').join('');
  return '';
}

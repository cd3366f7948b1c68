import { InvalidRequestError } from '../../shared/errors.js';
import type { ChatCompletionRequest, ChatMessage, ContentPart, FunctionTool } from '../../shared/openai-types.js';
import type {
  BedrockContentBlock,
  BedrockConverseRequest,
  BedrockMessage,
  BedrockToolChoice,
  BedrockToolSpec,
} from './bedrock-types.js';
import { convertContentPart } from './convert-bedrock-content-part.js';

/** The tool the gateway forces to get a JSON answer from Converse, which has no JSON mode of its own. */
export const JSON_MODE_TOOL_NAME = 'gateway_json_response';

export interface BedrockRequestConversion {
  body: BedrockConverseRequest;
  /** Parameters dropped because Converse cannot honour them (sent as x-gateway-warnings). */
  warnings: string[];
  /** true when the answer comes back as a call of JSON_MODE_TOOL_NAME and must be turned into content. */
  jsonMode: boolean;
}

/** Parameters that Converse has no equivalent for and that do not change what the answer means. */
const DROPPED_WITH_WARNING = [
  'frequency_penalty',
  'presence_penalty',
  'seed',
  'logit_bias',
  'logprobs',
  'top_logprobs',
  'user',
  'service_tier',
  'metadata',
  'store',
  'prediction',
  'parallel_tool_calls',
  'modalities',
  'audio',
  'verbosity',
  'web_search_options',
];
/** Parameters this converter reads. */
const HANDLED = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'temperature',
  'top_p',
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'n',
  'tools',
  'tool_choice',
  'response_format',
  'reasoning_effort',
  'enable_search',
]);
/** Fields that steer the gateway itself. */
const GATEWAY_ONLY = new Set(['models', 'provider', 'route', 'transforms']);
const REASONING_BUDGETS: Record<string, number> = { low: 1024, medium: 4096, high: 16384 };
/** Room left for the visible answer when the client set no max_tokens but asked for reasoning. */
const ANSWER_ROOM_TOKENS = 4096;

/** An OpenAI chat request → a Converse request body. Pure; what cannot be sent is a warning or a 400. */
export function convertToBedrockRequest(
  request: ChatCompletionRequest,
  upstreamModel: string,
): BedrockRequestConversion {
  const warnings: string[] = [];
  if (request.enable_search) {
    throw new InvalidRequestError(
      'enable_search is not available on Amazon Bedrock: Converse has no native web search.',
      'enable_search',
      'search_unsupported',
    );
  }
  const { system, messages } = convertMessages(request.messages);
  const body: BedrockConverseRequest = { messages };
  if (system.length > 0) body.system = system;

  const inferenceConfig: NonNullable<BedrockConverseRequest['inferenceConfig']> = {};
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens !== undefined && maxTokens !== null) inferenceConfig.maxTokens = maxTokens;
  if (request.temperature !== undefined && request.temperature !== null)
    inferenceConfig.temperature = request.temperature;
  if (request.top_p !== undefined && request.top_p !== null) inferenceConfig.topP = request.top_p;
  if (request.stop !== undefined && request.stop !== null)
    inferenceConfig.stopSequences = Array.isArray(request.stop) ? request.stop : [request.stop];

  const jsonMode = request.response_format?.type === 'json_object' || request.response_format?.type === 'json_schema';
  const toolConfig = convertTools(request, messages, jsonMode, warnings);
  if (toolConfig) body.toolConfig = toolConfig;

  const thinking = reasoningFields(request, upstreamModel, inferenceConfig, warnings);
  if (thinking) body.additionalModelRequestFields = thinking;
  if (Object.keys(inferenceConfig).length > 0) body.inferenceConfig = inferenceConfig;

  for (const field of DROPPED_WITH_WARNING) {
    const value = request[field];
    if (value === undefined || value === null || value === false) continue;
    if (value === 0 && field.endsWith('_penalty')) continue;
    if (field === 'parallel_tool_calls' && value === true) continue;
    warnings.push(`${field} is not supported by Amazon Bedrock and was ignored`);
  }
  for (const field of Object.keys(request)) {
    if (HANDLED.has(field) || GATEWAY_ONLY.has(field) || DROPPED_WITH_WARNING.includes(field)) continue;
    warnings.push(`${field} is not supported by Amazon Bedrock and was ignored`);
  }
  return { body, warnings, jsonMode };
}

function convertMessages(input: ChatMessage[]): { system: Array<{ text: string }>; messages: BedrockMessage[] } {
  const system: Array<{ text: string }> = [];
  const messages: BedrockMessage[] = [];
  const append = (role: BedrockMessage['role'], blocks: BedrockContentBlock[]) => {
    if (blocks.length === 0) return;
    const last = messages[messages.length - 1];
    // Converse wants turns to alternate; tool results and the user text after them share one turn.
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  input.forEach((message, index) => {
    const where = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = textOf(message.content, `${where}.content`);
        if (text) system.push({ text });
        break;
      }
      case 'user':
        append('user', userBlocks(message.content, `${where}.content`));
        break;
      case 'assistant':
        append('assistant', assistantBlocks(message, where));
        break;
      case 'tool':
        append('user', [
          {
            toolResult: {
              toolUseId: message.tool_call_id ?? '',
              content: [{ text: textOf(message.content, `${where}.content`) }],
            },
          },
        ]);
        break;
      default:
        throw new InvalidRequestError(`Unsupported role '${String(message.role)}'.`, `${where}.role`);
    }
  });
  return { system, messages };
}

function userBlocks(content: ChatMessage['content'], param: string): BedrockContentBlock[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  return content.flatMap((part: ContentPart, index) => convertContentPart(part, `${param}[${index}]`));
}

function assistantBlocks(message: ChatMessage, where: string): BedrockContentBlock[] {
  const blocks: BedrockContentBlock[] = [];
  const text = textOf(message.content, `${where}.content`);
  // Converse rejects blank text blocks; an assistant turn with only tool calls has none.
  if (text.trim() !== '') blocks.push({ text });
  (message.tool_calls ?? []).forEach((call, index) => {
    let input: unknown;
    try {
      input = call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments);
    } catch {
      throw new InvalidRequestError(
        'Tool call arguments must be a JSON string.',
        `${where}.tool_calls[${index}].function.arguments`,
      );
    }
    blocks.push({ toolUse: { toolUseId: call.id, name: call.function.name, input } });
  });
  return blocks;
}

function textOf(content: ChatMessage['content'], param: string): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part, index) => {
      if (part.type !== 'text')
        throw new InvalidRequestError(`Only text content is allowed here (got '${part.type}').`, `${param}[${index}]`);
      return part.text;
    })
    .join('');
}

function convertTools(
  request: ChatCompletionRequest,
  messages: BedrockMessage[],
  jsonMode: boolean,
  warnings: string[],
): BedrockConverseRequest['toolConfig'] {
  const tools = request.tools ?? [];
  const choice = request.tool_choice;
  const reservedIndex = tools.findIndex((tool) => tool.function.name === JSON_MODE_TOOL_NAME);
  if (reservedIndex !== -1) {
    throw new InvalidRequestError(
      `The tool name '${JSON_MODE_TOOL_NAME}' is reserved by the gateway for JSON mode.`,
      `tools[${reservedIndex}].function.name`,
    );
  }
  const historyToolNames = toolNamesInHistory(messages);
  if (jsonMode) {
    if (tools.length > 0 && choice !== 'none') {
      throw new InvalidRequestError(
        'Amazon Bedrock answers in JSON through a forced tool call, so response_format json_object/json_schema cannot be combined with tools.',
        'response_format',
        'unsupported_parameter',
      );
    }
    const schema = request.response_format?.json_schema?.schema ?? { type: 'object' };
    const description =
      request.response_format?.json_schema?.description ?? 'Respond with the answer as JSON matching this schema.';
    const jsonTool: BedrockToolSpec = {
      toolSpec: { name: JSON_MODE_TOOL_NAME, description, inputSchema: { json: schema } },
    };
    return {
      tools: [jsonTool, ...placeholderSpecs(historyToolNames, [])],
      toolChoice: { tool: { name: JSON_MODE_TOOL_NAME } },
    };
  }
  if (choice === 'none') {
    if (historyToolNames.size === 0) return undefined;
    warnings.push(
      "tool_choice 'none' is not supported by Amazon Bedrock; tools stay available because the conversation uses them",
    );
    return { tools: [...tools.map(toToolSpec), ...placeholderSpecs(historyToolNames, tools)] };
  }
  if (tools.length === 0) {
    // Converse refuses toolUse/toolResult blocks without a toolConfig, even when no new call is wanted.
    return historyToolNames.size > 0 ? { tools: placeholderSpecs(historyToolNames, []) } : undefined;
  }
  const config: NonNullable<BedrockConverseRequest['toolConfig']> = {
    tools: [...tools.map(toToolSpec), ...placeholderSpecs(historyToolNames, tools)],
  };
  const toolChoice = convertToolChoice(choice);
  if (toolChoice) config.toolChoice = toolChoice;
  return config;
}

function convertToolChoice(choice: ChatCompletionRequest['tool_choice']): BedrockToolChoice | undefined {
  if (choice === undefined || choice === 'auto') return undefined;
  if (choice === 'required') return { any: {} };
  if (typeof choice === 'object') return { tool: { name: choice.function.name } };
  return undefined;
}

function toToolSpec(tool: FunctionTool): BedrockToolSpec {
  const spec: BedrockToolSpec['toolSpec'] = {
    name: tool.function.name,
    inputSchema: { json: tool.function.parameters ?? { type: 'object', properties: {} } },
  };
  if (tool.function.description) spec.description = tool.function.description;
  return { toolSpec: spec };
}

function toolNamesInHistory(messages: BedrockMessage[]): Set<string> {
  const names = new Set<string>();
  for (const message of messages)
    for (const block of message.content) if ('toolUse' in block) names.add(block.toolUse.name);
  return names;
}

/** Specs for tools the history calls but the request no longer lists, so Converse accepts the history. */
function placeholderSpecs(names: Set<string>, declared: FunctionTool[]): BedrockToolSpec[] {
  const known = new Set(declared.map((tool) => tool.function.name));
  return [...names]
    .filter((name) => !known.has(name))
    .map((name) => ({ toolSpec: { name, inputSchema: { json: { type: 'object' } } } }));
}

/**
 * reasoning_effort → Anthropic extended thinking, the one reasoning switch Converse passes
 * through for Claude models. Other model families have no common field, so it is dropped with a warning.
 */
function reasoningFields(
  request: ChatCompletionRequest,
  upstreamModel: string,
  inferenceConfig: NonNullable<BedrockConverseRequest['inferenceConfig']>,
  warnings: string[],
): Record<string, unknown> | undefined {
  const effort = request.reasoning_effort;
  if (typeof effort !== 'string' || effort === 'none' || effort === 'minimal') return undefined;
  let budget = REASONING_BUDGETS[effort];
  if (budget === undefined || !upstreamModel.includes('anthropic.')) {
    warnings.push(`reasoning_effort is not supported for ${upstreamModel} on Amazon Bedrock and was ignored`);
    return undefined;
  }
  if (inferenceConfig.maxTokens === undefined) inferenceConfig.maxTokens = budget + ANSWER_ROOM_TOKENS;
  else if (inferenceConfig.maxTokens <= budget) budget = inferenceConfig.maxTokens - 1;
  if (budget < REASONING_BUDGETS.low!) {
    warnings.push(
      'reasoning_effort was ignored: max_tokens leaves no room for the minimum thinking budget of 1024 tokens',
    );
    return undefined;
  }
  return { thinking: { type: 'enabled', budget_tokens: budget } };
}

import { InvalidRequestError } from '../shared/errors.js';
import type { ChatCompletionRequest } from '../shared/openai-types.js';

/**
 * Rules of a chat request that span several fields, checked after the JSON Schema passed.
 * Pure: throws an InvalidRequestError naming the parameter, as OpenAI does.
 */
export function validateChatRequest(request: ChatCompletionRequest): void {
  request.messages.forEach((message, index) => {
    const where = `messages[${index}]`;
    if (message.role === 'tool' && !message.tool_call_id) {
      throw new InvalidRequestError(
        `Missing required parameter: '${where}.tool_call_id'. A message with role 'tool' must answer a tool call.`,
        `${where}.tool_call_id`,
      );
    }
    const hasContent = message.content !== undefined && message.content !== null;
    if (message.role === 'assistant') {
      if (!hasContent && !(message.tool_calls && message.tool_calls.length > 0)) {
        throw new InvalidRequestError(
          `Missing required parameter: '${where}.content'. An assistant message needs content or tool_calls.`,
          `${where}.content`,
        );
      }
    } else if (!hasContent) {
      throw new InvalidRequestError(`Missing required parameter: '${where}.content'.`, `${where}.content`);
    }
    if (message.role !== 'assistant' && message.tool_calls !== undefined) {
      throw new InvalidRequestError(
        `Invalid parameter: '${where}.tool_calls' is only allowed on assistant messages.`,
        `${where}.tool_calls`,
      );
    }
    if (Array.isArray(message.content) && message.role !== 'user') {
      const nonText = message.content.findIndex((part) => part.type !== 'text');
      if (nonText !== -1) {
        throw new InvalidRequestError(
          `Invalid value: '${where}.content[${nonText}].type'. Only 'user' messages may carry ${message.content[nonText].type} parts.`,
          `${where}.content[${nonText}].type`,
        );
      }
    }
  });
  if (request.stream_options && !request.stream) {
    throw new InvalidRequestError(
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      'stream_options',
    );
  }
  if (request.tool_choice !== undefined && !(request.tools && request.tools.length > 0)) {
    throw new InvalidRequestError(
      "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
      'tool_choice',
    );
  }
  if (request.tool_choice && typeof request.tool_choice === 'object') {
    const name = request.tool_choice.function.name;
    if (!request.tools?.some((tool) => tool.function.name === name)) {
      throw new InvalidRequestError(
        `Invalid value for 'tool_choice': no tool named '${name}' is in 'tools'.`,
        'tool_choice',
      );
    }
  }
  if (request.tools) {
    const names = new Set<string>();
    request.tools.forEach((tool, index) => {
      if (names.has(tool.function.name)) {
        throw new InvalidRequestError(
          `Invalid 'tools[${index}].function.name': the name '${tool.function.name}' is used twice.`,
          `tools[${index}].function.name`,
        );
      }
      names.add(tool.function.name);
    });
  }
  if (request.response_format?.type === 'json_schema' && !request.response_format.json_schema) {
    throw new InvalidRequestError(
      "Missing required parameter: 'response_format.json_schema'.",
      'response_format.json_schema',
    );
  }
  if (request.top_logprobs !== undefined && request.top_logprobs !== null && !request.logprobs) {
    throw new InvalidRequestError(
      "Invalid value for 'top_logprobs': 'logprobs' must be true when 'top_logprobs' is set.",
      'top_logprobs',
    );
  }
}

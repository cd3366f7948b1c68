import { InvalidRequestError } from '../../shared/errors.js';
import type { ChatMessage, ChatCompletionRequest, ToolCall } from '../../shared/openai-types.js';

/** The text of a message's content (a string, or its text parts joined). */
export function textOfContent(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** A tool call's `arguments` string as the object providers want; bad JSON is the client's error. */
export function parseToolCallArguments(call: ToolCall, where: string): Record<string, unknown> {
  const text = call.function.arguments;
  if (text === undefined || text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidRequestError(
      `Invalid '${where}.function.arguments': not valid JSON.`,
      `${where}.function.arguments`,
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new InvalidRequestError(
      `Invalid '${where}.function.arguments': must be a JSON object.`,
      `${where}.function.arguments`,
    );
  }
  return parsed as Record<string, unknown>;
}

/** The output limit the client asked for; max_completion_tokens is OpenAI's newer name and wins. */
export function requestedMaxTokens(request: ChatCompletionRequest): number | undefined {
  return request.max_completion_tokens ?? request.max_tokens ?? undefined;
}

/** `stop` as a list. */
export function stopSequences(request: ChatCompletionRequest): string[] | undefined {
  if (request.stop === undefined || request.stop === null) return undefined;
  return Array.isArray(request.stop) ? request.stop : [request.stop];
}

/**
 * Warnings for parameters the client set that this provider cannot honour and that are safe to
 * drop (the answer is still the answer the client asked for, only less tuned).
 */
export function droppedParameterWarnings(
  request: ChatCompletionRequest,
  names: readonly string[],
  providerName: string,
): string[] {
  return names
    .filter((name) => request[name] !== undefined && request[name] !== null)
    .map((name) => `${name} is not supported by ${providerName} and was ignored`);
}

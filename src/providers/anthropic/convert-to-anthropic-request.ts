import { InvalidRequestError } from '../../shared/errors.js';
import type { ChatCompletionRequest } from '../../shared/openai-types.js';
import { droppedParameterWarnings, requestedMaxTokens, stopSequences } from '../shared/request-content.js';
import type { AnthropicRequest } from './anthropic-types.js';
import { convertAnthropicMessages } from './convert-anthropic-messages.js';
import { convertAnthropicTools } from './convert-anthropic-tools.js';

/** Anthropic requires max_tokens; 4096 is within every Claude model's output limit. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

/** Thinking budgets for OpenAI's reasoning_effort. */
const THINKING_BUDGETS: Record<string, number> = { minimal: 1024, low: 1024, medium: 4096, high: 16384 };

/** Parameters Anthropic has no equivalent for; dropping them leaves the answer meaningful. */
const DROPPED_PARAMETERS = [
  'frequency_penalty',
  'presence_penalty',
  'seed',
  'logit_bias',
  'logprobs',
  'top_logprobs',
  'service_tier',
] as const;

export interface AnthropicConversionOptions {
  upstreamModel: string;
  providerName: string;
  /** provider options.default_max_tokens */
  defaultMaxTokens?: number;
  /** provider options.web_search_max_uses */
  webSearchMaxUses?: number;
}

export interface ConvertedAnthropicRequest {
  body: AnthropicRequest;
  warnings: string[];
  jsonToolName?: string;
}

/**
 * An OpenAI chat request → an Anthropic Messages request. Pure. Temperature above Anthropic's
 * ceiling of 1 is clamped to 1 with a warning (the nearest value Anthropic honours), the same
 * rule every time.
 */
export function convertToAnthropicRequest(
  request: ChatCompletionRequest,
  options: AnthropicConversionOptions,
): ConvertedAnthropicRequest {
  const warnings = droppedParameterWarnings(request, DROPPED_PARAMETERS, options.providerName);
  const { system, messages } = convertAnthropicMessages(request.messages);
  if (messages.length === 0) {
    throw new InvalidRequestError(
      'Anthropic needs at least one user or assistant message besides the system prompt.',
      'messages',
    );
  }
  const body: AnthropicRequest = {
    model: options.upstreamModel,
    messages,
    max_tokens: requestedMaxTokens(request) ?? options.defaultMaxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
  };
  if (system.length > 0) body.system = system;
  if (request.temperature !== undefined && request.temperature !== null) {
    if (request.temperature > 1)
      warnings.push(
        `temperature ${request.temperature} is above ${options.providerName}'s maximum of 1 and was clamped to 1`,
      );
    body.temperature = Math.min(request.temperature, 1);
  }
  if (request.top_p !== undefined && request.top_p !== null) body.top_p = request.top_p;
  if (typeof request.top_k === 'number') body.top_k = request.top_k;
  const stop = stopSequences(request);
  if (stop && stop.length > 0) body.stop_sequences = stop;
  if (request.stream) body.stream = true;
  if (typeof request.user === 'string' && request.user) body.metadata = { user_id: request.user };

  const { tools, toolChoice, jsonToolName } = convertAnthropicTools(request, options.webSearchMaxUses);
  if (tools) body.tools = tools;
  if (toolChoice) body.tool_choice = toolChoice;

  const thinking = convertThinking(request, body.max_tokens);
  if (thinking) body.thinking = thinking;
  return { body, warnings, jsonToolName };
}

/** `thinking` passed as Anthropic spells it wins; otherwise reasoning_effort picks a budget below max_tokens. */
function convertThinking(request: ChatCompletionRequest, maxTokens: number): AnthropicRequest['thinking'] | undefined {
  const passed = request.thinking as AnthropicRequest['thinking'] | undefined;
  if (passed && typeof passed === 'object') return passed;
  const effort = request.reasoning_effort;
  if (typeof effort !== 'string' || effort === 'none') return undefined;
  const budget = THINKING_BUDGETS[effort];
  if (budget === undefined)
    throw new InvalidRequestError(`Invalid value for 'reasoning_effort': '${effort}'.`, 'reasoning_effort');
  // Thinking counts against max_tokens and needs at least 1024 tokens of budget.
  const fitted = Math.min(budget, maxTokens - 1);
  if (fitted < 1024) {
    throw new InvalidRequestError(
      `'max_tokens' must be above 1024 to leave room for reasoning_effort '${effort}'.`,
      'max_tokens',
    );
  }
  return { type: 'enabled', budget_tokens: fitted };
}

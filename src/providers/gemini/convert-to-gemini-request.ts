import { InvalidRequestError } from '../../shared/errors.js';
import type { ChatCompletionRequest } from '../../shared/openai-types.js';
import { droppedParameterWarnings, requestedMaxTokens, stopSequences } from '../shared/request-content.js';
import { convertGeminiContents } from './convert-gemini-contents.js';
import { convertJsonSchemaToGemini, isEmptyObjectSchema } from './convert-json-schema-to-gemini.js';
import type { GeminiRequest } from './gemini-types.js';

/** Thinking budgets for OpenAI's reasoning_effort; 'none' turns thinking off where the model allows. */
const THINKING_BUDGETS: Record<string, number> = { none: 0, minimal: 512, low: 1024, medium: 8192, high: 24576 };

/** Parameters Gemini has no equivalent for; dropping them leaves the answer meaningful. */
const DROPPED_PARAMETERS = ['logit_bias', 'logprobs', 'top_logprobs', 'service_tier', 'parallel_tool_calls'] as const;

export interface GeminiConversionOptions {
  providerName: string;
  /** provider options.safety_settings, sent as given. */
  safetySettings?: unknown[];
}

export interface ConvertedGeminiRequest {
  body: GeminiRequest;
  warnings: string[];
}

/** An OpenAI chat request → a Gemini generateContent body (the model and stream mode are in the URL). Pure. */
export function convertToGeminiRequest(
  request: ChatCompletionRequest,
  options: GeminiConversionOptions,
): ConvertedGeminiRequest {
  const warnings = droppedParameterWarnings(request, DROPPED_PARAMETERS, options.providerName);
  const { contents, systemInstruction } = convertGeminiContents(request.messages);
  if (contents.length === 0) {
    throw new InvalidRequestError(
      'Gemini needs at least one user or assistant message besides the system prompt.',
      'messages',
    );
  }
  const body: GeminiRequest = { contents };
  if (systemInstruction) body.systemInstruction = systemInstruction;
  const generationConfig = convertGenerationConfig(request);
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;

  const tools: Array<Record<string, unknown>> = [];
  if (request.tools && request.tools.length > 0) {
    tools.push({
      functionDeclarations: request.tools.map((tool) => ({
        name: tool.function.name,
        ...(tool.function.description ? { description: tool.function.description } : {}),
        ...(isEmptyObjectSchema(tool.function.parameters)
          ? {}
          : { parameters: convertJsonSchemaToGemini(tool.function.parameters ?? {}) }),
      })),
    });
  }
  if (request.enable_search) tools.push({ googleSearch: {} });
  if (tools.length > 0) body.tools = tools;
  const toolConfig = convertToolChoice(request);
  if (toolConfig) body.toolConfig = toolConfig;
  if (options.safetySettings) body.safetySettings = options.safetySettings;
  return { body, warnings };
}

function convertGenerationConfig(request: ChatCompletionRequest): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  const set = (name: string, value: unknown) => {
    if (value !== undefined && value !== null) config[name] = value;
  };
  set('temperature', request.temperature);
  set('topP', request.top_p);
  set('topK', typeof request.top_k === 'number' ? request.top_k : undefined);
  set('maxOutputTokens', requestedMaxTokens(request));
  set('stopSequences', stopSequences(request));
  set('candidateCount', request.n);
  set('presencePenalty', request.presence_penalty);
  set('frequencyPenalty', request.frequency_penalty);
  set('seed', request.seed);
  const format = request.response_format;
  if (format?.type === 'json_object') config.responseMimeType = 'application/json';
  if (format?.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    if (format.json_schema?.schema) config.responseSchema = convertJsonSchemaToGemini(format.json_schema.schema);
  }
  const effort = request.reasoning_effort;
  if (typeof effort === 'string') {
    const budget = THINKING_BUDGETS[effort];
    if (budget === undefined)
      throw new InvalidRequestError(`Invalid value for 'reasoning_effort': '${effort}'.`, 'reasoning_effort');
    config.thinkingConfig = budget === 0 ? { thinkingBudget: 0 } : { thinkingBudget: budget, includeThoughts: true };
  }
  return config;
}

function convertToolChoice(request: ChatCompletionRequest): GeminiRequest['toolConfig'] | undefined {
  const choice = request.tool_choice;
  if (choice === undefined) return undefined;
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
}

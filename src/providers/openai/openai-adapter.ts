import type { ProviderAdapter, TranslationContext, UpstreamHttpRequest } from '../provider-adapter.js';
import type { ChatCompletionRequest } from '../../shared/openai-types.js';
import { convertToOpenAIRequest } from './convert-to-openai-request.js';
import { OpenAIStreamDecoder } from './openai-stream-decoder.js';
import { parseOpenAIResponse } from './parse-openai-response.js';
import { mapOpenAIError } from './openai-error.js';
import { openAIResponsesNative, speaksResponses } from './openai-responses-native.js';
import { chatNative, passesChatThrough } from './openai-chat-native.js';

function buildOpenAIRequest(request: ChatCompletionRequest, context: TranslationContext): UpstreamHttpRequest {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...context.provider.headers };
  if (context.provider.apiKey) headers.authorization = `Bearer ${context.provider.apiKey}`;
  return {
    url: `${context.provider.baseUrl}/chat/completions`,
    method: 'POST',
    headers,
    body: JSON.stringify(convertToOpenAIRequest(request, context)),
    warnings: [],
  };
}

const openAIChatNative = chatNative(buildOpenAIRequest);

/** The OpenAI chat-completions protocol; Groq, Together, vLLM, Ollama, … are presets of it. */
export const openAIAdapter: ProviderAdapter = {
  type: 'openai',
  supportsMultipleChoices: true,
  buildRequest: buildOpenAIRequest,
  buildModelListRequest(provider) {
    const headers: Record<string, string> = { ...provider.headers };
    if (provider.apiKey) headers.authorization = `Bearer ${provider.apiKey}`;
    return { url: `${provider.baseUrl}/models`, method: 'GET', headers, body: '', warnings: [] };
  },
  parseResponse: parseOpenAIResponse,
  createStreamDecoder: (context) => new OpenAIStreamDecoder(context),
  mapError: (status, body, headers, context) => mapOpenAIError(status, body, headers, context.provider.name),
  native(api, provider) {
    if (api === 'openai-responses') return speaksResponses(provider) ? openAIResponsesNative : undefined;
    if (api === 'openai-chat') return passesChatThrough(provider) ? openAIChatNative : undefined;
    return undefined;
  },
};

import type { ChatCompletionRequest } from '../../shared/openai-types.js';
import type { ProviderAdapter, TranslationContext, UpstreamHttpRequest } from '../provider-adapter.js';
import { decodeUtf8 } from '../shared/parse-upstream-json.js';
import { convertToGeminiRequest } from './convert-to-gemini-request.js';
import { mapGeminiError } from './gemini-error.js';
import { GeminiStreamDecoder } from './gemini-stream-decoder.js';
import { parseGeminiResponse } from './parse-gemini-response.js';
import { geminiNative } from './gemini-native.js';

/** Google AI generateContent / streamGenerateContent?alt=sse (`type: gemini`). */
export const geminiAdapter: ProviderAdapter = {
  type: 'gemini',
  supportsMultipleChoices: true,
  buildRequest(request: ChatCompletionRequest, context: TranslationContext): UpstreamHttpRequest {
    const { provider } = context;
    const safetySettings = Array.isArray(provider.options.safety_settings)
      ? provider.options.safety_settings
      : undefined;
    const converted = convertToGeminiRequest(request, { providerName: provider.name, safetySettings });
    const model = encodeURIComponent(context.upstreamModel.replace(/^models\//, ''));
    const url = request.stream
      ? `${provider.baseUrl}/models/${model}:streamGenerateContent?alt=sse`
      : `${provider.baseUrl}/models/${model}:generateContent`;
    const headers: Record<string, string> = { 'content-type': 'application/json', ...provider.headers };
    if (provider.apiKey) headers['x-goog-api-key'] = provider.apiKey;
    return { url, method: 'POST', headers, body: JSON.stringify(converted.body), warnings: converted.warnings };
  },
  parseResponse: parseGeminiResponse,
  createStreamDecoder: (context) => new GeminiStreamDecoder(context),
  buildModelListRequest(provider) {
    const headers: Record<string, string> = { ...provider.headers };
    if (provider.apiKey) headers['x-goog-api-key'] = provider.apiKey;
    return { url: `${provider.baseUrl}/models`, method: 'GET', headers, body: '', warnings: [] };
  },
  mapError: (status, body, headers, context) =>
    mapGeminiError(status, decodeUtf8(body), headers, context.provider.name),
  native: (api) => (api === 'gemini-generate-content' ? geminiNative : undefined),
};

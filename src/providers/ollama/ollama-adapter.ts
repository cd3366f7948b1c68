import { UpstreamError } from '../../shared/errors.js';
import type { ChatCompletionRequest } from '../../shared/openai-types.js';
import { mapOpenAIError } from '../openai/openai-error.js';
import type { ProviderAdapter, TranslationContext, UpstreamHttpRequest } from '../provider-adapter.js';
import { convertToOllamaRequest } from './convert-to-ollama-request.js';
import { buildOllamaCompletion, type OllamaChatObject } from './ollama-response.js';
import { OllamaStreamDecoder } from './ollama-stream-decoder.js';

/**
 * Ollama's native `/api/chat` (NDJSON streams). base_url is the server root; a trailing `/v1`
 * (the OpenAI-compatible preset's URL) is dropped so `preset: ollama` + `type: ollama` works.
 */
export const ollamaAdapter: ProviderAdapter = {
  type: 'ollama',
  supportsMultipleChoices: false,
  buildRequest(request: ChatCompletionRequest, context: TranslationContext): UpstreamHttpRequest {
    const { body, warnings } = convertToOllamaRequest(request, context.upstreamModel);
    const headers: Record<string, string> = { 'content-type': 'application/json', ...context.provider.headers };
    if (context.provider.apiKey) headers.authorization = `Bearer ${context.provider.apiKey}`;
    const root = context.provider.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
    return { url: `${root}/api/chat`, method: 'POST', headers, body: JSON.stringify(body), warnings };
  },
  buildModelListRequest(provider) {
    const headers: Record<string, string> = { ...provider.headers };
    if (provider.apiKey) headers.authorization = `Bearer ${provider.apiKey}`;
    const root = provider.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
    return { url: `${root}/api/tags`, method: 'GET', headers, body: '', warnings: [] };
  },
  parseResponse(body: Uint8Array, context: TranslationContext) {
    let parsed: OllamaChatObject;
    try {
      parsed = JSON.parse(new TextDecoder().decode(body)) as OllamaChatObject;
    } catch {
      throw new UpstreamError(
        502,
        'upstream_bad_response',
        `${context.provider.name} answered with a body that is not JSON.`,
      );
    }
    if (!parsed || typeof parsed !== 'object' || (parsed.message === undefined && parsed.response === undefined)) {
      throw new UpstreamError(502, 'upstream_bad_response', `${context.provider.name} answered without a message.`);
    }
    return buildOllamaCompletion(parsed, context);
  },
  createStreamDecoder: (context) => new OllamaStreamDecoder(context),
  // Ollama's errors are {"error": "text"}, which the OpenAI mapping already reads.
  mapError: (status, body, headers, context) => mapOpenAIError(status, body, headers, context.provider.name),
};

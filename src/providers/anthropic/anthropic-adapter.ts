import type { ChatCompletionRequest } from '../../shared/openai-types.js';
import type { ProviderAdapter, TranslationContext, UpstreamHttpRequest } from '../provider-adapter.js';
import { decodeUtf8 } from '../shared/parse-upstream-json.js';
import { AnthropicStreamDecoder } from './anthropic-stream-decoder.js';
import { mapAnthropicError } from './anthropic-error.js';
import { convertToAnthropicRequest } from './convert-to-anthropic-request.js';
import { parseAnthropicResponse } from './parse-anthropic-response.js';
import { anthropicNative } from './anthropic-native.js';

const ANTHROPIC_VERSION = '2023-06-01';

/**
 * What buildRequest decided that the answer's translation needs (the JSON-answer tool's name).
 * The core hands the same context object to buildRequest, parseResponse and the stream decoder
 * of one attempt, so it is the key; nothing outlives the attempt.
 */
const jsonToolNames = new WeakMap<TranslationContext, string>();

function numberOption(options: Record<string, unknown>, name: string): number | undefined {
  const value = options[name];
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** The Anthropic Messages API (`type: anthropic`). */
export const anthropicAdapter: ProviderAdapter = {
  type: 'anthropic',
  supportsMultipleChoices: false,
  buildRequest(request: ChatCompletionRequest, context: TranslationContext): UpstreamHttpRequest {
    const { provider } = context;
    const converted = convertToAnthropicRequest(request, {
      upstreamModel: context.upstreamModel,
      providerName: provider.name,
      defaultMaxTokens: numberOption(provider.options, 'default_max_tokens'),
      webSearchMaxUses: numberOption(provider.options, 'web_search_max_uses'),
    });
    if (converted.jsonToolName) jsonToolNames.set(context, converted.jsonToolName);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'anthropic-version':
        typeof provider.options.anthropic_version === 'string' ? provider.options.anthropic_version : ANTHROPIC_VERSION,
      ...provider.headers,
    };
    if (provider.apiKey) headers['x-api-key'] = provider.apiKey;
    return {
      url: `${provider.baseUrl}/messages`,
      method: 'POST',
      headers,
      body: JSON.stringify(converted.body),
      warnings: converted.warnings,
    };
  },
  buildModelListRequest(provider) {
    const headers: Record<string, string> = {
      'anthropic-version':
        typeof provider.options.anthropic_version === 'string' ? provider.options.anthropic_version : ANTHROPIC_VERSION,
      ...provider.headers,
    };
    if (provider.apiKey) headers['x-api-key'] = provider.apiKey;
    return { url: `${provider.baseUrl}/models`, method: 'GET', headers, body: '', warnings: [] };
  },
  parseResponse: (body, context) => parseAnthropicResponse(body, context, jsonToolNames.get(context)),
  createStreamDecoder: (context) => new AnthropicStreamDecoder(context, jsonToolNames.get(context)),
  mapError: (status, body, headers, context) =>
    mapAnthropicError(status, decodeUtf8(body), headers, context.provider.name),
  native: (api) => (api === 'anthropic-messages' ? anthropicNative : undefined),
};

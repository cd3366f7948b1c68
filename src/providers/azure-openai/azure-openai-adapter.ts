import { InvalidRequestError } from '../../shared/errors.js';
import type { ChatCompletionRequest } from '../../shared/openai-types.js';
import { openAIAdapter } from '../openai/openai-adapter.js';
import { convertToOpenAIRequest } from '../openai/convert-to-openai-request.js';
import type { ProviderAdapter, TranslationContext, UpstreamHttpRequest } from '../provider-adapter.js';
import { azureChatCompletionsUrl, azureModelListUrl, azureResponsesUrl } from './azure-openai-url.js';
import { responsesNative } from '../openai/openai-responses-native.js';
import { chatNative } from '../openai/openai-chat-native.js';

const azureResponsesNative = responsesNative(azureResponsesUrl, (provider): Record<string, string> =>
  provider.apiKey ? { 'api-key': provider.apiKey } : {},
);

/**
 * Azure OpenAI: the OpenAI chat-completions protocol at a deployment URL with `api-version`,
 * authenticated by the `api-key` header. Answers, streams and errors are OpenAI's (Azure adds
 * content-filter fields, which pass through), so only the request differs.
 */
export const azureOpenAIAdapter: ProviderAdapter = {
  ...openAIAdapter,
  type: 'azure-openai',
  buildModelListRequest(provider) {
    const headers: Record<string, string> = { ...provider.headers };
    if (provider.apiKey) headers['api-key'] = provider.apiKey;
    return { url: azureModelListUrl(provider), method: 'GET', headers, body: '', warnings: [] };
  },
  buildRequest: buildAzureChatRequest,
  // Azure's streams open with a content-filter chunk OpenAI's document does not describe
  // (`object: ""`): chat bytes pass through only where the operator says so (chat_pass_through).
  native(api, provider) {
    if (api === 'openai-responses') return azureResponsesNative;
    if (api === 'openai-chat' && provider.options.chat_pass_through === true) return azureChatNative;
    return undefined;
  },
};

function buildAzureChatRequest(request: ChatCompletionRequest, context: TranslationContext): UpstreamHttpRequest {
  if (request.enable_search) {
    throw new InvalidRequestError(
      'enable_search is not available on Azure OpenAI chat completions.',
      'enable_search',
      'search_unsupported',
    );
  }
  const headers: Record<string, string> = { 'content-type': 'application/json', ...context.provider.headers };
  if (context.provider.apiKey) headers['api-key'] = context.provider.apiKey;
  return {
    url: azureChatCompletionsUrl(context.provider, context.upstreamModel),
    method: 'POST',
    headers,
    body: JSON.stringify(convertToOpenAIRequest(request, context)),
    warnings: [],
  };
}

const azureChatNative = chatNative(buildAzureChatRequest);

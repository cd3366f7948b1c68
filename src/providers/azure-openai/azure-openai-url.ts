import type { ProviderConfig } from '../../config/gateway-config.js';

/** The GA data-plane version; `options.api_version` (or OPENAI_API_VERSION) picks another. */
const DEFAULT_AZURE_API_VERSION = '2024-10-21';

/**
 * The chat-completions URL of an Azure OpenAI deployment. base_url is the resource endpoint
 * (https://NAME.openai.azure.com, with or without /openai); the endpoint's upstream_model is the
 * deployment name. `api_version: v1` selects Azure's newer /openai/v1 API, where the deployment
 * travels in the body's `model` as on OpenAI and no api-version is needed.
 */
/** The resource's model list: /openai/v1/models, or /openai/models?api-version=… on the dated API. */
export function azureModelListUrl(provider: ProviderConfig): string {
  const resource = provider.baseUrl.replace(/\/+$/, '').replace(/\/openai$/, '');
  const apiVersion =
    typeof provider.options.api_version === 'string' && provider.options.api_version !== ''
      ? provider.options.api_version
      : DEFAULT_AZURE_API_VERSION;
  if (apiVersion === 'v1') return `${resource}/openai/v1/models`;
  return `${resource}/openai/models?api-version=${encodeURIComponent(apiVersion)}`;
}

export function azureChatCompletionsUrl(provider: ProviderConfig, deployment: string): string {
  const resource = provider.baseUrl.replace(/\/+$/, '').replace(/\/openai$/, '');
  const apiVersion =
    typeof provider.options.api_version === 'string' && provider.options.api_version !== ''
      ? provider.options.api_version
      : DEFAULT_AZURE_API_VERSION;
  if (apiVersion === 'v1') return `${resource}/openai/v1/chat/completions`;
  return `${resource}/openai/deployments/${encodeURIComponent(deployment)}/chat/completions?api-version=${encodeURIComponent(apiVersion)}`;
}

/** The api-version of Azure's Responses API when the resource is not on the v1 API (`options.responses_api_version`). */
const DEFAULT_AZURE_RESPONSES_API_VERSION = '2025-04-01-preview';

/** The Responses URL of an Azure OpenAI resource; the deployment travels in the body's `model`. */
export function azureResponsesUrl(provider: ProviderConfig): string {
  const resource = provider.baseUrl.replace(/\/+$/, '').replace(/\/openai$/, '');
  if (provider.options.api_version === 'v1') return `${resource}/openai/v1/responses`;
  const version =
    typeof provider.options.responses_api_version === 'string'
      ? provider.options.responses_api_version
      : DEFAULT_AZURE_RESPONSES_API_VERSION;
  return `${resource}/openai/responses?api-version=${encodeURIComponent(version)}`;
}

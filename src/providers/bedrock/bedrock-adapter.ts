import type { ChatCompletionRequest } from '../../shared/openai-types.js';
import type { ProviderAdapter, TranslationContext, UpstreamHttpRequest } from '../provider-adapter.js';
import { bedrockBaseUrl, resolveBedrockAuth } from './bedrock-credentials.js';
import { mapBedrockError } from './bedrock-error.js';
import { BedrockStreamDecoder } from './bedrock-stream-decoder.js';
import { convertToBedrockRequest } from './convert-to-bedrock-request.js';
import { parseBedrockResponse } from './parse-bedrock-response.js';
import { bedrockModelRequest } from './bedrock-http-request.js';
import { bedrockAnthropicNative, servesAnthropicMessages } from './bedrock-anthropic-native.js';
import { signAwsRequest } from './sign-aws-request.js';

/**
 * Amazon Bedrock's Converse and ConverseStream APIs, signed with SigV4 (service `bedrock`); its
 * Anthropic models also take the Messages API natively (InvokeModel, bedrock-anthropic-native.ts).
 */
export const bedrockAdapter: ProviderAdapter = {
  type: 'bedrock',
  supportsMultipleChoices: false,
  buildRequest(request: ChatCompletionRequest, context: TranslationContext): Promise<UpstreamHttpRequest> {
    const conversion = convertToBedrockRequest(request, context.upstreamModel);
    return bedrockModelRequest(
      context.provider,
      context.upstreamModel,
      context.stream ? 'converse-stream' : 'converse',
      JSON.stringify(conversion.body),
      { stream: context.stream, signingDate: new Date(context.created * 1000), warnings: conversion.warnings },
    );
  },
  /** ListFoundationModels, on the control-plane host (bedrock.REGION…, not bedrock-runtime.REGION…). */
  async buildModelListRequest(provider, now) {
    const auth = resolveBedrockAuth(provider);
    const runtime = bedrockBaseUrl(provider, auth.region);
    const url = `${runtime.replace('://bedrock-runtime', '://bedrock')}/foundation-models`;
    const headers: Record<string, string> = { ...provider.headers, accept: 'application/json' };
    if (auth.kind === 'bearer') {
      headers.authorization = `Bearer ${auth.token}`;
      return { url, method: 'GET', headers, body: '', warnings: [] };
    }
    const signed = await signAwsRequest(
      { method: 'GET', url, headers, body: '' },
      { credentials: auth.credentials, region: auth.region, service: 'bedrock', signingDate: now },
    );
    return { url, method: 'GET', headers: signed, body: '', warnings: [] };
  },
  parseResponse: parseBedrockResponse,
  createStreamDecoder: (context) => new BedrockStreamDecoder(context),
  mapError: (status, body, headers, context) => mapBedrockError(status, body, headers, context.provider.name),
  native: (api, _provider, upstreamModel) =>
    api === 'anthropic-messages' && servesAnthropicMessages(upstreamModel) ? bedrockAnthropicNative : undefined,
};

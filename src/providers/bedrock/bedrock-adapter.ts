import type { ChatCompletionRequest } from '../../shared/openai-types.js';
import type { ProviderAdapter, TranslationContext, UpstreamHttpRequest } from '../provider-adapter.js';
import { bedrockBaseUrl, resolveBedrockAuth } from './bedrock-credentials.js';
import { mapBedrockError } from './bedrock-error.js';
import { BedrockStreamDecoder } from './bedrock-stream-decoder.js';
import { convertToBedrockRequest } from './convert-to-bedrock-request.js';
import { parseBedrockResponse } from './parse-bedrock-response.js';
import { signAwsRequest } from './sign-aws-request.js';

/** Amazon Bedrock's Converse and ConverseStream APIs, signed with SigV4 (service `bedrock`). */
export const bedrockAdapter: ProviderAdapter = {
  type: 'bedrock',
  supportsMultipleChoices: false,
  async buildRequest(request: ChatCompletionRequest, context: TranslationContext): Promise<UpstreamHttpRequest> {
    const conversion = convertToBedrockRequest(request, context.upstreamModel);
    const auth = resolveBedrockAuth(context.provider);
    const operation = context.stream ? 'converse-stream' : 'converse';
    // Model ids hold ':' (and inference profile ARNs '/'), so the id is one encoded path segment.
    const url = `${bedrockBaseUrl(context.provider, auth.region)}/model/${encodeURIComponent(context.upstreamModel)}/${operation}`;
    const body = JSON.stringify(conversion.body);
    const headers: Record<string, string> = {
      ...context.provider.headers,
      'content-type': 'application/json',
      accept: context.stream ? 'application/vnd.amazon.eventstream' : 'application/json',
    };
    if (auth.kind === 'bearer') {
      headers.authorization = `Bearer ${auth.token}`;
      return { url, method: 'POST', headers, body, warnings: conversion.warnings };
    }
    const signed = await signAwsRequest(
      { method: 'POST', url, headers, body },
      {
        credentials: auth.credentials,
        region: auth.region,
        service: 'bedrock',
        signingDate: new Date(context.created * 1000),
      },
    );
    return { url, method: 'POST', headers: signed, body, warnings: conversion.warnings };
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
};

import type { ProviderConfig } from '../../config/gateway-config.js';
import type { UpstreamHttpRequest } from '../provider-adapter.js';
import { bedrockBaseUrl, resolveBedrockAuth } from './bedrock-credentials.js';
import { signAwsRequest } from './sign-aws-request.js';

/**
 * A POST to one of a model's runtime operations (converse, converse-stream, invoke,
 * invoke-with-response-stream), authenticated with SigV4 or the Bedrock API key.
 */
export async function bedrockModelRequest(
  provider: ProviderConfig,
  upstreamModel: string,
  operation: string,
  body: string,
  options: { stream: boolean; signingDate: Date; warnings?: string[] },
): Promise<UpstreamHttpRequest> {
  const auth = resolveBedrockAuth(provider);
  // Model ids hold ':' (and inference profile ARNs '/'), so the id is one encoded path segment.
  const url = `${bedrockBaseUrl(provider, auth.region)}/model/${encodeURIComponent(upstreamModel)}/${operation}`;
  const headers: Record<string, string> = {
    ...provider.headers,
    'content-type': 'application/json',
    accept: options.stream ? 'application/vnd.amazon.eventstream' : 'application/json',
  };
  const warnings = options.warnings ?? [];
  if (auth.kind === 'bearer') {
    headers.authorization = `Bearer ${auth.token}`;
    return { url, method: 'POST', headers, body, warnings };
  }
  const signed = await signAwsRequest(
    { method: 'POST', url, headers, body },
    { credentials: auth.credentials, region: auth.region, service: 'bedrock', signingDate: options.signingDate },
  );
  return { url, method: 'POST', headers: signed, body, warnings };
}

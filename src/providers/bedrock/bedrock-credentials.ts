import { UpstreamError } from '../../shared/errors.js';
import type { ProviderConfig } from '../../config/gateway-config.js';
import type { AwsCredentials } from './sign-aws-request.js';

export type BedrockAuth =
  { kind: 'sigv4'; credentials: AwsCredentials; region: string } | { kind: 'bearer'; token: string; region: string };

const DEFAULT_REGION = 'us-east-1';

/**
 * How to authenticate to Bedrock, from the provider's options (filled from AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN and AWS_REGION by the bedrock preset): SigV4 with
 * access keys, or a Bedrock API key (`api_key`) as a bearer token when no access key is set.
 */
export function resolveBedrockAuth(provider: ProviderConfig): BedrockAuth {
  const options = provider.options;
  const region = stringOption(options.region) ?? regionFromUrl(provider.baseUrl) ?? DEFAULT_REGION;
  const accessKeyId = stringOption(options.access_key_id);
  const secretAccessKey = stringOption(options.secret_access_key);
  if (accessKeyId || secretAccessKey) {
    if (!accessKeyId || !secretAccessKey) {
      throw new UpstreamError(
        502,
        'provider_misconfigured',
        `${provider.name}: options.access_key_id and options.secret_access_key must both be set.`,
      );
    }
    const credentials: AwsCredentials = { accessKeyId, secretAccessKey };
    const sessionToken = stringOption(options.session_token);
    if (sessionToken) credentials.sessionToken = sessionToken;
    return { kind: 'sigv4', credentials, region };
  }
  if (provider.apiKey) return { kind: 'bearer', token: provider.apiKey, region };
  throw new UpstreamError(
    502,
    'provider_misconfigured',
    `${provider.name}: no AWS credentials (options.access_key_id/secret_access_key or api_key).`,
  );
}

/** The runtime endpoint for the region; base_url may hold `{region}` (the preset does). */
export function bedrockBaseUrl(provider: ProviderConfig, region: string): string {
  return provider.baseUrl.replace('{region}', region);
}

function regionFromUrl(baseUrl: string): string | undefined {
  return /bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com/.exec(baseUrl)?.[1];
}

function stringOption(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

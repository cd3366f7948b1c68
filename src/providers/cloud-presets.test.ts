import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { createProviderRegistry } from './provider-registry.js';
import { resolveBedrockAuth, bedrockBaseUrl } from './bedrock/bedrock-credentials.js';

const knownProviderTypes = [...createProviderRegistry().keys()];

describe('cloud presets from the standard environment variables', () => {
  it('AWS_* variables enable Bedrock with SigV4 credentials and the regional endpoint', () => {
    const { config } = loadConfig({
      env: {
        AWS_ACCESS_KEY_ID: 'AKID',
        AWS_SECRET_ACCESS_KEY: 'secret',
        AWS_SESSION_TOKEN: 'token',
        AWS_REGION: 'eu-central-1',
      },
      cwd: '/nonexistent',
      knownProviderTypes,
    });
    const bedrock = config.providers.find((provider) => provider.id === 'bedrock')!;
    expect(bedrock.type).toBe('bedrock');
    const auth = resolveBedrockAuth(bedrock);
    expect(auth).toEqual({
      kind: 'sigv4',
      region: 'eu-central-1',
      credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret', sessionToken: 'token' },
    });
    expect(bedrockBaseUrl(bedrock, auth.region)).toBe('https://bedrock-runtime.eu-central-1.amazonaws.com');
  });

  it('AWS_DEFAULT_REGION is the fallback region, and us-east-1 the last resort', () => {
    const withDefault = loadConfig({
      env: { AWS_ACCESS_KEY_ID: 'A', AWS_SECRET_ACCESS_KEY: 'S', AWS_DEFAULT_REGION: 'ap-south-1' },
      cwd: '/nonexistent',
      knownProviderTypes,
    });
    expect(resolveBedrockAuth(withDefault.config.providers[0]!).region).toBe('ap-south-1');
    const withNone = loadConfig({
      env: { AWS_ACCESS_KEY_ID: 'A', AWS_SECRET_ACCESS_KEY: 'S' },
      cwd: '/nonexistent',
      knownProviderTypes,
    });
    expect(resolveBedrockAuth(withNone.config.providers[0]!).region).toBe('us-east-1');
  });

  it('Azure needs both the key and the endpoint', () => {
    const keyOnly = loadConfig({ env: { AZURE_OPENAI_API_KEY: 'k' }, cwd: '/nonexistent', knownProviderTypes });
    expect(keyOnly.config.providers.find((provider) => provider.id === 'azure-openai')).toBeUndefined();
    const { config } = loadConfig({
      env: {
        AZURE_OPENAI_API_KEY: 'k',
        AZURE_OPENAI_ENDPOINT: 'https://acme.openai.azure.com/',
        OPENAI_API_VERSION: '2025-01-01-preview',
      },
      cwd: '/nonexistent',
      knownProviderTypes,
    });
    const azure = config.providers.find((provider) => provider.id === 'azure-openai')!;
    expect(azure).toMatchObject({
      type: 'azure-openai',
      baseUrl: 'https://acme.openai.azure.com',
      apiKey: 'k',
      options: { api_version: '2025-01-01-preview' },
    });
  });

  it('a configured bedrock provider takes file options over the environment', () => {
    const { config } = loadConfig({
      text: 'providers:\n  - id: aws\n    preset: bedrock\n    options: { region: us-west-2 }\n',
      env: { AWS_ACCESS_KEY_ID: 'A', AWS_SECRET_ACCESS_KEY: 'S', AWS_REGION: 'eu-west-1' },
      knownProviderTypes,
    });
    const aws = config.providers.find((provider) => provider.id === 'aws')!;
    expect(aws.options).toEqual({ region: 'us-west-2', access_key_id: 'A', secret_access_key: 'S' });
    expect(resolveBedrockAuth(aws).region).toBe('us-west-2');
  });

  it('a Bedrock API key works as a bearer token when no access key is configured', () => {
    const { config } = loadConfig({
      text: 'providers:\n  - id: aws\n    type: bedrock\n    base_url: https://bedrock-runtime.us-west-2.amazonaws.com\n    api_key: bedrock-api-key\n',
      env: {},
      knownProviderTypes,
    });
    expect(resolveBedrockAuth(config.providers[0]!)).toEqual({
      kind: 'bearer',
      token: 'bedrock-api-key',
      region: 'us-west-2',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { testTranslationContext } from '../../../test/helpers/translation-context.js';
import { azureChatCompletionsUrl } from './azure-openai-url.js';

describe('azureChatCompletionsUrl', () => {
  it.each([
    [
      'https://acme.openai.azure.com',
      {},
      'gpt-4o-prod',
      'https://acme.openai.azure.com/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21',
    ],
    [
      'https://acme.openai.azure.com/openai',
      {},
      'gpt-4o',
      'https://acme.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21',
    ],
    [
      'https://acme.openai.azure.com/',
      { api_version: '2025-04-01-preview' },
      'my deployment',
      'https://acme.openai.azure.com/openai/deployments/my%20deployment/chat/completions?api-version=2025-04-01-preview',
    ],
    [
      'https://acme.openai.azure.com',
      { api_version: 'v1' },
      'gpt-4o',
      'https://acme.openai.azure.com/openai/v1/chat/completions',
    ],
  ])('%s %j %s', (baseUrl, options, deployment, expected) => {
    const { provider } = testTranslationContext({ type: 'azure-openai', baseUrl, options });
    expect(azureChatCompletionsUrl(provider, deployment)).toBe(expected);
  });
});

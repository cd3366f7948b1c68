import type { ProviderConfig } from '../../src/config/gateway-config.js';
import { DEFAULT_TIMEOUTS } from '../../src/config/gateway-config.js';
import type { TranslationContext } from '../../src/providers/provider-adapter.js';

const BASE_PROVIDER: ProviderConfig = {
  id: 'test-provider',
  name: 'Test Provider',
  type: 'openai',
  baseUrl: 'http://127.0.0.1:1',
  apiKey: 'secret',
  headers: {},
  timeouts: { ...DEFAULT_TIMEOUTS },
  maxConnections: 1,
  options: {},
  policies: {},
  fromEnvironment: false,
};

/** A translation context for adapter unit tests: fixed ids and time, a provider of the given type. */
export function testTranslationContext(
  provider: Partial<ProviderConfig> = {},
  overrides: Partial<TranslationContext> = {},
): TranslationContext {
  let counter = 0;
  return {
    provider: { ...BASE_PROVIDER, ...provider },
    upstreamModel: 'upstream-model',
    publicModel: 'test/model',
    completionId: 'chatcmpl-test',
    created: 1_700_000_000,
    generateId: (prefix) => `${prefix}${++counter}`,
    stream: false,
    ...overrides,
  };
}

/** The provider the replay tests translate for (an upstream.example URL and key they assert on). */
export function testProvider(overrides: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    ...BASE_PROVIDER,
    baseUrl: 'https://upstream.example/v1',
    apiKey: 'upstream-key',
    maxConnections: 8,
    ...overrides,
  };
}

/** The replay tests' context: testProvider() and the public model `public/model` (call_1, call_2, … ids). */
export function testContext(overrides: Partial<TranslationContext> = {}): TranslationContext {
  return testTranslationContext(testProvider(), { publicModel: 'public/model', ...overrides });
}

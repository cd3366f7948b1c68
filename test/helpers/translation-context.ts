import type { ProviderConfig } from '../../src/config/gateway-config.js';
import { DEFAULT_TIMEOUTS } from '../../src/config/gateway-config.js';
import type { TranslationContext } from '../../src/providers/provider-adapter.js';

/** A translation context for adapter unit tests: fixed ids and time, a provider of the given type. */
export function testTranslationContext(
  provider: Partial<ProviderConfig> = {},
  overrides: Partial<TranslationContext> = {},
): TranslationContext {
  let counter = 0;
  return {
    provider: {
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
      ...provider,
    },
    upstreamModel: 'upstream-model',
    publicModel: 'test/model',
    completionId: 'chatcmpl-test',
    created: 1_700_000_000,
    generateId: (prefix) => `${prefix}${++counter}`,
    stream: false,
    ...overrides,
  };
}

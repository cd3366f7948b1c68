import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { createProviderRegistry } from '../../src/providers/provider-registry.js';
import { testContext } from '../helpers/translation-context.js';

const registry = createProviderRegistry();
const knownProviderTypes = [...registry.keys()];

describe('anthropic and gemini as config types and presets', () => {
  it('the credential variables alone enable both, with the preset URLs and the right adapter', async () => {
    const { config } = loadConfig({
      env: { ANTHROPIC_API_KEY: 'sk-ant-test', GEMINI_API_KEY: 'gm-test' },
      cwd: '/nonexistent',
      knownProviderTypes,
    });
    const byId = new Map(config.providers.map((provider) => [provider.id, provider]));
    expect(byId.get('anthropic')).toMatchObject({
      type: 'anthropic',
      baseUrl: 'https://api.anthropic.com/v1',
      apiKey: 'sk-ant-test',
      fromEnvironment: true,
    });
    expect(byId.get('gemini')).toMatchObject({
      type: 'gemini',
      baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
      apiKey: 'gm-test',
      fromEnvironment: true,
    });

    const request = { model: 'x', messages: [{ role: 'user' as const, content: 'Hi' }] };
    const anthropic = await registry
      .get('anthropic')!
      .buildRequest(request, testContext({ provider: byId.get('anthropic')!, upstreamModel: 'claude-sonnet-4-5' }));
    expect(anthropic.url).toBe('https://api.anthropic.com/v1/messages');
    expect(anthropic.headers).toMatchObject({ 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' });
    const gemini = await registry
      .get('gemini')!
      .buildRequest(
        { ...request, stream: true },
        testContext({ provider: byId.get('gemini')!, upstreamModel: 'models/gemini-2.5-flash' }),
      );
    expect(gemini.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
    expect(gemini.headers).toMatchObject({ 'x-goog-api-key': 'gm-test' });
  });

  it('`type: anthropic` and `type: gemini` are accepted in the file, with their options', () => {
    const { config } = loadConfig({
      text: `
providers:
  - id: claude
    type: anthropic
    base_url: http://127.0.0.1:9/v1
    options: { default_max_tokens: 1024, web_search_max_uses: 2 }
  - id: vertex-like
    preset: gemini
    api_key: k
`,
      env: {},
      knownProviderTypes,
    });
    expect(config.providers.map((provider) => [provider.id, provider.type])).toEqual([
      ['claude', 'anthropic'],
      ['vertex-like', 'gemini'],
    ]);
  });

  it('the anthropic options reach the request: default_max_tokens and web_search_max_uses', async () => {
    const { config } = loadConfig({
      text: `providers:\n  - id: claude\n    type: anthropic\n    base_url: http://h/v1\n    options: { default_max_tokens: 1024, web_search_max_uses: 2 }\n`,
      env: {},
      knownProviderTypes,
    });
    const built = await registry
      .get('anthropic')!
      .buildRequest(
        { model: 'x', enable_search: true, messages: [{ role: 'user', content: 'news?' }] },
        testContext({ provider: config.providers[0] }),
      );
    expect(JSON.parse(built.body as string)).toMatchObject({
      max_tokens: 1024,
      tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 2 }],
    });
  });
});

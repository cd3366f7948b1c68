import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './load-config.js';

const TYPES = ['openai', 'anthropic', 'gemini'];

function load(text: string, env: Record<string, string> = {}) {
  return loadConfig({ text, env, knownProviderTypes: TYPES });
}

describe('loadConfig', () => {
  const pricedModel = (modalities: string, pricing: string) => `providers:
  - id: acme
    base_url: http://127.0.0.1:9100/v1
models:
  - id: acme/m
    output_modalities: [${modalities}]
    endpoints:
      - provider: acme
        upstream_model: m
        pricing: ${pricing}
`;

  it('an embedding model needs no completion price (regression: embedding model needed pricing.completion)', () => {
    const { config } = load(pricedModel('embeddings', '{ prompt: 0.02 }'));
    expect(config.models[0].endpoints[0].pricing).toMatchObject({ promptMicros: 20_000, completionMicros: 0 });
  });

  it('a chat model without a completion price is refused, naming the field', () => {
    expect(() => load(pricedModel('text', '{ prompt: 0.02 }'))).toThrow(
      /models\[0\]\.endpoints\[0\]\.pricing\.completion is required for a chat model/,
    );
  });

  it('the shipped example config loads, its upstream port from MOCK_UPSTREAM_PORT (9100 when unset)', () => {
    const text = readFileSync(new URL('../../gateway.config.example.yaml', import.meta.url), 'utf8');
    expect(load(text).config.providers[0].baseUrl).toBe('http://127.0.0.1:9100/v1');
    const moved = load(text, { MOCK_UPSTREAM_PORT: '9333' }).config;
    expect(moved.providers[0].baseUrl).toBe('http://127.0.0.1:9333/v1');
    expect(moved.models.map((model) => model.id)).toEqual(['mock/chat', 'mock/embed']);
  });

  it('reads providers and models, interpolates ${ENV} and converts prices to exact micro-USD', () => {
    const { config, warnings } = load(
      `providers:
  - id: acme
    name: Acme AI
    type: openai
    base_url: http://127.0.0.1:9100/v1/
    api_key: \${ACME_KEY}
models:
  - id: acme/chat-1
    endpoints:
      - provider: acme
        upstream_model: chat-1
        pricing: { prompt: 0.15, completion: 0.0375 }
        context_length: 128000
`,
      { ACME_KEY: 'secret-1' },
    );
    expect(warnings).toEqual([]);
    expect(config.providers[0]).toMatchObject({
      id: 'acme',
      baseUrl: 'http://127.0.0.1:9100/v1',
      apiKey: 'secret-1',
      type: 'openai',
    });
    expect(config.models[0].endpoints[0].pricing).toMatchObject({ promptMicros: 150_000, completionMicros: 37_500 });
    expect(config.models[0]).toMatchObject({ name: 'acme/chat-1', author: 'acme', inputModalities: ['text'] });
    expect(config.databaseUrl).toBe('sqlite:./data/gateway.db');
    expect(config.server).toMatchObject({ host: '127.0.0.1', port: 8080, bodyLimitBytes: 10 * 1024 * 1024 });
  });

  it('warns about an unset variable and leaves the optional field empty', () => {
    const { config, warnings } = load(
      `providers:\n  - id: acme\n    base_url: http://x/v1\n    api_key: \${MISSING_KEY}\n`,
    );
    expect(config.providers[0].apiKey).toBeUndefined();
    expect(warnings[0]).toMatch(/MISSING_KEY is not set/);
    expect(warnings[0]).toMatch(/:4/);
  });

  it('enables providers from standard credential variables with no file', () => {
    const { config } = loadConfig({
      env: { OPENAI_API_KEY: 'sk-test', GROQ_API_KEY: 'gsk', PORT: '9999', DATABASE_URL: 'postgres://u@h/db' },
      cwd: '/nonexistent',
    });
    expect(config.providers.map((provider) => provider.id).sort()).toEqual(['groq', 'openai']);
    expect(config.providers.find((provider) => provider.id === 'groq')).toMatchObject({
      baseUrl: 'https://api.groq.com/openai/v1',
      apiKey: 'gsk',
      fromEnvironment: true,
    });
    expect(config.server.port).toBe(9999);
    expect(config.databaseUrl).toBe('postgres://u@h/db');
  });

  it('fills a provider from its preset', () => {
    const { config } = load(`providers:\n  - id: my-groq\n    preset: groq\n    api_key: k\n`);
    expect(config.providers[0]).toMatchObject({
      baseUrl: 'https://api.groq.com/openai/v1',
      name: 'Groq',
      type: 'openai',
    });
  });

  it.each([
    ['a wrong type, with its line', `server:\n  port: "eighty"\n`, /server\.port must be integer.*line 2/],
    ['an unknown setting', `server:\n  prot: 80\n`, /server\.prot is not a known setting/],
    ['a missing required field', `providers:\n  - name: x\n`, /providers\[0\]\.id is required/],
    [
      'a negative price',
      `providers:\n  - id: a\n    base_url: http://x\nmodels:\n  - id: m\n    endpoints:\n      - provider: a\n        upstream_model: u\n        pricing: { prompt: -1, completion: 1 }\n`,
      /pricing\.prompt must be >= 0.*line 9/,
    ],
    [
      'an endpoint on an unknown provider',
      `models:\n  - id: m\n    endpoints:\n      - provider: ghost\n        upstream_model: u\n`,
      /models\[0\]\.endpoints\[0\]\.provider names "ghost", which is not a configured provider.*line 4/,
    ],
    [
      'an unknown provider type',
      `providers:\n  - id: a\n    type: carrier-pigeon\n    base_url: http://x\n`,
      /unknown provider type "carrier-pigeon"/,
    ],
    [
      'a duplicate model id',
      `providers:\n  - id: a\n    base_url: http://x\nmodels:\n  - id: m\n    endpoints: [{ provider: a, upstream_model: u }]\n  - id: m\n    endpoints: [{ provider: a, upstream_model: u }]\n`,
      /used twice/,
    ],
    ['broken YAML', `providers: [\n  - id: a\n`, /invalid YAML/],
    ['a negative heap growth', `server:\n  heap_growth_percent: -5\n`, /heap_growth_percent/],
    [
      'a price with too many decimals',
      `providers:\n  - id: a\n    base_url: http://x\nmodels:\n  - id: m\n    endpoints: [{ provider: a, upstream_model: u, pricing: { prompt: 0.0000001, completion: 1 } }]\n`,
      /more than 6 decimal places/,
    ],
  ])('rejects %s', (_name, text, message) => {
    expect(() => load(text)).toThrow(ConfigError);
    expect(() => load(text)).toThrow(message);
  });

  it('caps the heap growth at 50 % unless told otherwise (0 leaves it to V8)', () => {
    expect(load('').config.server.heapGrowthPercent).toBe(50);
    expect(load('server:\n  heap_growth_percent: 0\n').config.server.heapGrowthPercent).toBe(0);
    expect(load('server:\n  heap_growth_percent: 120\n').config.server.heapGrowthPercent).toBe(120);
  });

  it('rejects a DATABASE_URL it cannot use, without echoing a password', () => {
    expect(() => loadConfig({ env: { DATABASE_URL: 'mysql://root:hunter2@h/db' }, cwd: '/nonexistent' })).toThrow(
      /must start with sqlite: or postgres:\/\/.*\*\*\*/,
    );
  });
});

import { describe, expect, it } from 'vitest';
import type { ChatCompletionRequest } from '../shared/openai-types.js';
import { testTranslationContext } from '../../test/helpers/translation-context.js';
import { createProviderRegistry } from './provider-registry.js';

// Decision (docs/routing.md, "Sampling parameters the client leaves out"): a sampling parameter the
// client does not send is not sent upstream either, so the provider's own default applies. The
// gateway never writes the spec's defaults (temperature 1, top_p 1, penalties 0) into a request.

const SAMPLING_KEYS = new Set([
  'temperature',
  'top_p',
  'topP',
  'frequency_penalty',
  'frequencyPenalty',
  'presence_penalty',
  'presencePenalty',
]);

/** Every key anywhere in a JSON value. */
function keysOf(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => keysOf(item, found));
  else if (value && typeof value === 'object')
    for (const [key, inner] of Object.entries(value)) {
      found.push(key);
      keysOf(inner, found);
    }
  return found;
}

const OPTIONS: Record<string, Record<string, unknown>> = {
  bedrock: { region: 'eu-west-1', access_key_id: 'AKIDEXAMPLE', secret_access_key: 'secret' },
};

async function sentBody(type: string, request: Partial<ChatCompletionRequest>): Promise<unknown> {
  const adapter = createProviderRegistry().get(type)!;
  const upstream = await adapter.buildRequest(
    { model: 'test/model', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 16, ...request },
    testTranslationContext({ type, name: type, options: OPTIONS[type] ?? {} }),
  );
  const text = typeof upstream.body === 'string' ? upstream.body : new TextDecoder().decode(upstream.body);
  return JSON.parse(text);
}

const TYPES = [...createProviderRegistry().keys()];

describe.each(TYPES)('sampling parameters on %s', (type) => {
  it('none sent by the client: none sent upstream, so the provider default applies', async () => {
    const sent = keysOf(await sentBody(type, {}));
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.filter((key) => SAMPLING_KEYS.has(key))).toEqual([]);
  });

  it('sent by the client: passed on', async () => {
    const sent = keysOf(await sentBody(type, { temperature: 0.3, top_p: 0.9 }));
    expect(sent.filter((key) => SAMPLING_KEYS.has(key)).sort()).toEqual(
      type === 'gemini' || type === 'bedrock' ? ['temperature', 'topP'] : ['temperature', 'top_p'],
    );
  });
});

it('covers every provider type the registry knows', () => {
  expect([...TYPES].sort()).toEqual(['anthropic', 'azure-openai', 'bedrock', 'gemini', 'ollama', 'openai']);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { CHAT_PROTOCOL_ROUTES, startProtocolFakes, type ProtocolFakes } from '../helpers/protocol-fakes.js';

/**
 * A conversation's prompt_cache_key keeps it on one endpoint, so the provider's prompt cache
 * stays warm, while different conversations still spread over the model's weighted endpoints.
 */
let fakes: ProtocolFakes;
let gateway: TestGateway;

beforeAll(async () => {
  fakes = await startProtocolFakes(CHAT_PROTOCOL_ROUTES);
  const provider = (id: string) =>
    `  - { id: ${id}, name: ${id}, type: openai, base_url: ${fakes.url}/v1, api_key: k, timeouts: { connect_ms: 1000, first_byte_ms: 3000, idle_ms: 3000, total_ms: 8000 } }`;
  gateway = await startTestGateway({
    configText: `
providers:
${provider('one')}
${provider('two')}
models:
  - id: test/spread
    endpoints:
      - { provider: one, upstream_model: m, priority: 0, weight: 1, pricing: { prompt: 1, completion: 2 } }
      - { provider: two, upstream_model: m, priority: 0, weight: 2, pricing: { prompt: 1, completion: 2 } }
`,
  });
});
afterAll(async () => {
  await gateway?.close();
  await fakes?.close();
});

async function providerFor(path: string, body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` },
    body: JSON.stringify(body),
  });
  await response.text();
  return response.headers.get('x-gateway-provider') ?? '';
}

describe('prompt cache affinity', () => {
  it('one prompt_cache_key always reaches the same endpoint; different keys spread', async () => {
    const chat = (key: string) =>
      providerFor('/v1/chat/completions', {
        model: 'test/spread',
        messages: [{ role: 'user', content: 'Hi' }],
        prompt_cache_key: key,
      });
    for (const key of ['conversation-a', 'conversation-b']) {
      const seen = new Set<string>();
      for (let turn = 0; turn < 8; turn++) seen.add(await chat(key));
      expect(seen.size).toBe(1);
    }
    const spread = new Set<string>();
    for (let index = 0; index < 24; index++) spread.add(await chat(`conversation-${index}`));
    expect(spread).toEqual(new Set(['one', 'two']));
  });

  it('on the Responses surface too', async () => {
    const seen = new Set<string>();
    for (let turn = 0; turn < 6; turn++)
      seen.add(await providerFor('/v1/responses', { model: 'test/spread', input: 'Hi', prompt_cache_key: 'codex-1' }));
    expect(seen.size).toBe(1);
  });
});

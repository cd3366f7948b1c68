/**
 * A provider and a model added by a config reload show on every surface derived from the config:
 * /v1/models and chat, the catalog (/api-account/models, its filters and the model page the console
 * and its playground read), /api-account/providers and the provider page, the routing templates
 * and template_id validation (regression: only /v1 saw them; the rest kept the start-up lists).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { loadConfig } from '../../src/config/load-config.js';
import { ConfigReloader } from '../../src/config/config-reloader.js';
import { createProviderRegistry } from '../../src/providers/provider-registry.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { requestJson } from '../helpers/account-client.js';

const ADDED = `  - id: second/chat
    name: Second Chat
    endpoints:
      - provider: acme
        upstream_model: acme-model
        pricing: { prompt: 1, completion: 2 }
routing:
  templates:
    - id: acme-first
      name: Acme first
      default_models: [{ model_id: second/chat, priority: 1 }]
`;

function withSecondProvider(upstreamUrl: string): string {
  return testConfigText(upstreamUrl, ADDED).replace(
    'models:',
    `  - id: acme\n    name: Acme AI\n    type: openai\n    base_url: ${upstreamUrl}\nmodels:`,
  );
}

async function until(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a config reload reaches every surface', () => {
  let upstream: MockUpstream;
  let gateway: TestGateway;
  let dir: string;
  let file: string;
  let reloader: ConfigReloader;
  let token: string;
  const get = (path: string) => requestJson(gateway.url, 'GET', path);
  const createKey = (templateId: string) =>
    requestJson(
      gateway.url,
      'POST',
      '/api-account/user/api-keys',
      { name: 'templated', template_id: templateId },
      { authorization: `Bearer ${token}` },
    );

  beforeAll(async () => {
    upstream = await startMockUpstream({ scenario: { chunkCount: 3 } });
    dir = mkdtempSync(join(tmpdir(), 'gateway-reload-surfaces-'));
    file = join(dir, 'gateway.config.yaml');
    writeFileSync(file, testConfigText(upstream.url));
    gateway = await startTestGateway({ configText: testConfigText(upstream.url) });
    reloader = new ConfigReloader({
      path: file,
      load: () =>
        loadConfig({ env: { GATEWAY_CONFIG: file }, knownProviderTypes: [...createProviderRegistry().keys()] }).config,
      apply: (config) => gateway.gateway.reloadConfig(config),
      current: gateway.config,
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined } as never,
      pollIntervalMs: 50,
      onSignal: false,
    });
    reloader.start();
    const signIn = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
      email: gateway.email,
      password: 'plum-orbit-42-lantern',
    });
    token = signIn.body.token;
  });
  afterAll(async () => {
    reloader?.stop();
    await gateway?.close();
    await upstream?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('before: none of them knows the provider, the model or the template', async () => {
    expect((await get('/api-account/models/second/chat')).status).toBe(404);
    expect((await get('/api-account/providers/acme')).status).toBe(404);
    expect((await get('/api-account/providers')).body.data.map((provider: { id: string }) => provider.id)).toEqual([
      'mock',
    ]);
    const templates = (await get('/api-account/routing-templates')).body.data.map(
      (template: { id: string }) => template.id,
    );
    expect(templates).not.toContain('acme-first');
    const refused = await createKey('acme-first');
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe('template_id');
  });

  it('after the file changes: /v1, the catalog, providers, templates and template_id all follow', async () => {
    writeFileSync(file, withSecondProvider(upstream.url));
    await until(async () => {
      const models = (await get('/v1/models')).body.data.map((model: { id: string }) => model.id);
      return models.includes('second/chat');
    });

    const chat = await requestJson(
      gateway.url,
      'POST',
      '/v1/chat/completions',
      { model: 'second/chat', messages: [{ role: 'user', content: 'Hi' }] },
      { authorization: `Bearer ${gateway.apiKey}` },
    );
    expect(chat.status).toBe(200);
    expect(chat.headers.get('x-gateway-provider')).toBe('acme');

    // The catalog: the model page (console model page, playground pricing), the list and its filters.
    const page = await get('/api-account/models/second/chat');
    expect(page.status).toBe(200);
    expect(
      page.body.endpoints.map(
        (endpoint: { provider_id?: string; provider?: string }) => endpoint.provider_id ?? endpoint.provider,
      ),
    ).toContain('acme');
    const listed = await get('/api-account/models?provider=acme');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((model: { id: string }) => model.id)).toEqual(['second/chat']);
    const filters = await get('/api-account/models/filters');
    expect(filters.body.providers.map((entry: { value: string }) => entry.value)).toContain('acme');

    // Providers: the list and the provider page the console shows.
    const providers = (await get('/api-account/providers')).body.data.map((provider: { id: string }) => provider.id);
    expect(providers.sort()).toEqual(['acme', 'mock']);
    const provider = await get('/api-account/providers/acme');
    expect(provider.status).toBe(200);
    expect(provider.body.models.map((model: { id: string }) => model.id)).toEqual(['second/chat']);
    expect((await get('/api-account/providers/acme/stats')).status).toBe(200);

    // Routing templates: listed, available, and accepted as template_id.
    const template = (await get('/api-account/routing-templates')).body.data.find(
      (entry: { id: string }) => entry.id === 'acme-first',
    );
    expect(template).toMatchObject({ default_models: [{ model_id: 'second/chat', priority: 1, available: true }] });
    const created = await createKey('acme-first');
    expect(created.status).toBe(201);
    expect(created.body.template_id).toBe('acme-first');
  });

  it('after the provider is taken out again: gone from every surface', async () => {
    writeFileSync(file, testConfigText(upstream.url));
    await until(async () => (await get('/api-account/providers/acme')).status === 404);
    expect((await get('/api-account/models/second/chat')).status).toBe(404);
    expect((await get('/v1/models')).body.data.map((model: { id: string }) => model.id)).not.toContain('second/chat');
    expect(
      (await get('/api-account/routing-templates')).body.data.map((entry: { id: string }) => entry.id),
    ).not.toContain('acme-first');
    expect((await createKey('acme-first')).status).toBe(400);
  });

  it('names in its result what needs a restart: a changed circuit breaker among them', async () => {
    // Only this explicit reload: the file poller reloading first would leave nothing to compare.
    reloader.stop();
    writeFileSync(file, testConfigText(upstream.url, 'routing:\n  circuit_breaker: { failure_threshold: 9 }\n'));
    const result = await reloader.reload('test');
    expect(result).toMatchObject({ ok: true, needsRestart: ['routing.circuit_breaker'] });
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { loadConfig } from '../../src/config/load-config.js';
import { ConfigReloader } from '../../src/config/config-reloader.js';
import { createProviderRegistry } from '../../src/providers/provider-registry.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { chat } from '../metering/metering-helpers.js';

const NEW_MODEL = `
  - id: test/second
    name: Second
    endpoints:
      - provider: mock
        upstream_model: second-model
        pricing: { prompt: 1, completion: 2 }
`;

async function modelIds(url: string): Promise<string[]> {
  const body = (await (await fetch(`${url}/v1/models`)).json()) as { data: Array<{ id: string }> };
  return body.data.map((model) => model.id).sort();
}

async function until(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('config reload without a restart', () => {
  let upstream: MockUpstream;
  let gateway: TestGateway;
  let dir: string;
  let file: string;
  let reloader: ConfigReloader;
  const errors: string[] = [];

  beforeAll(async () => {
    upstream = await startMockUpstream({ scenario: { chunkCount: 3 } });
    dir = mkdtempSync(join(tmpdir(), 'gateway-reload-'));
    file = join(dir, 'gateway.config.yaml');
    writeFileSync(file, testConfigText(upstream.url));
    gateway = await startTestGateway({ configText: testConfigText(upstream.url) });
    const load = () =>
      loadConfig({ env: { GATEWAY_CONFIG: file }, knownProviderTypes: [...createProviderRegistry().keys()] }).config;
    const logger = {
      info: () => undefined,
      warn: () => undefined,
      error: (message: string) => errors.push(message),
    } as never;
    reloader = new ConfigReloader({
      path: file,
      load,
      apply: (config) => gateway.gateway.reloadConfig(config),
      current: gateway.config,
      logger,
      pollIntervalMs: 50,
    });
    reloader.start();
  });
  afterAll(async () => {
    reloader?.stop();
    await gateway?.close();
    await upstream?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a model added to the file, with its routing, once the file changes', async () => {
    expect(await modelIds(gateway.url)).not.toContain('test/second');
    expect((await chat(gateway.url, gateway.apiKey, { model: 'test/second' })).status).toBe(404);

    writeFileSync(file, testConfigText(upstream.url, `${NEW_MODEL}routing:\n  retries: 0\n`));
    await until(async () => (await modelIds(gateway.url)).includes('test/second'));
    const response = await chat(gateway.url, gateway.apiKey, { model: 'test/second' });
    expect(response.status).toBe(200);
    expect((await response.json()).model).toBe('test/second');
    expect((upstream.requests.at(-1)?.body as any)?.model).toBe('second-model');
    expect(gateway.gateway.directory.get('test/second')?.endpoints[0].pricing.promptMicros).toBe(1_000_000);
  });

  it('refuses a bad config with its error and keeps serving the previous one', async () => {
    const before = await modelIds(gateway.url);
    writeFileSync(file, testConfigText(upstream.url).replace('type: openai', 'type: carrier-pigeon'));
    await until(async () => errors.length > 0);
    expect(errors[0]).toMatch(/refused, still serving the previous config: .*carrier-pigeon/);
    expect(await modelIds(gateway.url)).toEqual(before);
    expect((await chat(gateway.url, gateway.apiKey, { model: 'test/second' })).status).toBe(200);

    // Invalid YAML and an invalid field are refused the same way, through SIGHUP too.
    writeFileSync(file, 'providers: [\n');
    const yaml = await reloader.reload('test');
    expect(yaml).toMatchObject({ ok: false, error: expect.stringMatching(/invalid YAML/) });
    writeFileSync(file, testConfigText(upstream.url).replace('body_limit_bytes: 65536', 'body_limit_bytes: -1'));
    process.kill(process.pid, 'SIGHUP');
    await until(async () =>
      errors.some((message) => message.includes('SIGHUP') && message.includes('body_limit_bytes')),
    );
    expect(await modelIds(gateway.url)).toEqual(before);
    expect((await chat(gateway.url, gateway.apiKey, { model: 'test/chat' })).status).toBe(200);
  });

  it('removes a model taken out of the file and reports settings that need a restart', async () => {
    writeFileSync(file, testConfigText(upstream.url).replace('body_limit_bytes: 65536', 'body_limit_bytes: 70000'));
    const result = await reloader.reload('test');
    expect(result).toEqual({
      ok: true,
      summary: expect.stringMatching(/^1 providers, \d+ routable models$/),
      needsRestart: ['server'],
    });
    expect(await modelIds(gateway.url)).not.toContain('test/second');
    expect((await chat(gateway.url, gateway.apiKey, { model: 'test/second' })).status).toBe(404);
  });
});

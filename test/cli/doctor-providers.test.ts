/**
 * `gateway doctor` calls each provider's own model list with its credentials and tells apart
 * "reachable and authenticated", "reachable but refused" (401/403/404) and "down"
 * (regression: a provider answering 404 was reported "ok HTTP 404").
 */
import {
  startFakeUpstream,
  type FakeUpstream,
  type RecordedRequest,
  type UpstreamAnswer,
} from '../helpers/fake-upstream.js';
import { freePort as closedPort } from '../helpers/free-port.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliContext } from '../../src/cli/cli-context.js';
import { runDoctor, type DoctorRow } from '../../src/cli/doctor-command.js';
import { createProviderRegistry } from '../../src/providers/provider-registry.js';
import { loadConfig } from '../../src/config/load-config.js';

/** One fake upstream for every provider type: each path answers like that provider's model list. */
function modelListAnswer(request: RecordedRequest): UpstreamAnswer {
  const answer = (status: number, body: unknown) => ({ status, body: JSON.stringify(body) });
  const { url, headers } = request;
  if (url === '/openai/v1/models')
    return headers.authorization === 'Bearer good'
      ? answer(200, { object: 'list', data: [{ id: 'a' }, { id: 'b' }] })
      : answer(401, { error: { message: 'bad key' } });
  if (url === '/anthropic/v1/models')
    return headers['x-api-key'] === 'good' && headers['anthropic-version']
      ? answer(200, { data: [{ id: 'claude' }] })
      : answer(401, { type: 'error', error: { type: 'authentication_error' } });
  if (url === '/gemini/v1beta/models')
    return headers['x-goog-api-key'] === 'good'
      ? answer(200, { models: [{ name: 'models/gemini' }] })
      : answer(403, { error: { code: 403 } });
  if (url === '/api/tags') return answer(200, { models: [{ name: 'llama3' }] });
  if (url === '/forbidden/v1/models') return answer(403, { error: { message: 'no' } });
  if (url === '/broken/v1/models') return answer(500, { error: { message: 'oops' } });
  return answer(404, { error: { message: 'not found' } });
}

describe('gateway doctor, per provider', () => {
  let upstream: FakeUpstream;
  let dir: string;
  let rows: Record<string, DoctorRow>;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    upstream.answer(modelListAnswer);
    const base = upstream.url;
    dir = mkdtempSync(join(tmpdir(), 'gateway-doctor-'));
    const provider = (id: string, type: string, url: string, key?: string) =>
      `  - id: ${id}\n    type: ${type}\n    base_url: ${url}\n${key ? `    api_key: ${key}\n` : ''}`;
    writeFileSync(
      join(dir, 'gateway.config.yaml'),
      `providers:\n${[
        provider('openai-good', 'openai', `${base}/openai/v1`, 'good'),
        provider('openai-bad-key', 'openai', `${base}/openai/v1`, 'wrong'),
        provider('anthropic-good', 'anthropic', `${base}/anthropic/v1`, 'good'),
        provider('gemini-bad-key', 'gemini', `${base}/gemini/v1beta`, 'wrong'),
        provider('ollama-local', 'ollama', `${base}/v1`),
        provider('wrong-path', 'openai', `${base}/nothing/v1`, 'good'),
        provider('forbidden', 'openai', `${base}/forbidden/v1`, 'good'),
        provider('broken', 'openai', `${base}/broken/v1`, 'good'),
        provider('down', 'openai', `http://127.0.0.1:${await closedPort()}/v1`, 'good'),
      ].join('')}models: []\n`,
    );
    const context = new CliContext({
      GATEWAY_CONFIG: join(dir, 'gateway.config.yaml'),
      DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}`,
    });
    const report = await runDoctor(context, 5000);
    rows = Object.fromEntries(report.rows.map((row) => [row.check, row]));
  });
  afterAll(async () => {
    await upstream?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reachable and authenticated: a 2xx from the model list, with the count of models', () => {
    expect(rows['provider openai-good']).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(
        /^reachable and authenticated: HTTP 200 from GET \S+\/openai\/v1\/models, 2 models in \d+ ms$/,
      ),
    });
    expect(rows['provider anthropic-good']).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(
        /^reachable and authenticated: HTTP 200 from GET \S+\/anthropic\/v1\/models, 1 model in/,
      ),
    });
    // Ollama's native list (/api/tags) at the server root, whatever base_url ends with.
    expect(rows['provider ollama-local']).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/^reachable and authenticated: HTTP 200 from GET \S+\/api\/tags, 1 model in/),
    });
  });

  it('reachable but refused: 401, 403 and 404, each said in words', () => {
    expect(rows['provider openai-bad-key']).toMatchObject({
      status: 'FAIL',
      detail: expect.stringMatching(/^reachable but refused \(the credentials were not accepted\): HTTP 401 from GET /),
    });
    expect(rows['provider gemini-bad-key']).toMatchObject({
      status: 'FAIL',
      detail: expect.stringMatching(
        /^reachable but refused \(the credentials were not accepted\): HTTP 403 from GET \S+\/gemini\/v1beta\/models/,
      ),
    });
    expect(rows['provider forbidden'].detail).toMatch(
      /^reachable but refused \(the credentials were not accepted\): HTTP 403/,
    );
    expect(rows['provider wrong-path']).toMatchObject({
      status: 'FAIL',
      detail: expect.stringMatching(
        /^reachable but refused \(no model list there: check base_url\): HTTP 404 from GET /,
      ),
    });
    expect(rows['provider broken']).toMatchObject({
      status: 'FAIL',
      detail: expect.stringMatching(/^reachable but failing: HTTP 500/),
    });
  });

  it('down: nothing answers', () => {
    expect(rows['provider down']).toMatchObject({
      status: 'FAIL',
      detail: expect.stringMatching(/^down: ECONNREFUSED \(GET http:\/\/127\.0\.0\.1:\d+\/v1\/models\)$/),
    });
  });

  it('each call carries the credentials the provider type expects', () => {
    const anthropic = upstream.requests.find(
      (request) => request.url === '/anthropic/v1/models' && request.headers['x-api-key'] === 'good',
    );
    expect(anthropic?.method).toBe('GET');
    expect(anthropic?.headers['anthropic-version']).toBe('2023-06-01');
    expect(
      upstream.requests.some(
        (request) => request.url === '/gemini/v1beta/models' && request.headers['x-goog-api-key'] === 'wrong',
      ),
    ).toBe(true);
  });
});

describe('the model-list call of every built-in provider type', () => {
  const registry = createProviderRegistry();
  const providerOf = (yaml: string, env: Record<string, string> = {}) =>
    loadConfig({ text: `providers:\n${yaml}models: []\n`, env, knownProviderTypes: [...registry.keys()] }).config
      .providers[0];

  it('every adapter has one', () => {
    for (const [type, adapter] of registry) expect(adapter.buildModelListRequest, type).toBeTypeOf('function');
  });

  it.each([
    [
      'openai',
      '  - id: p\n    type: openai\n    base_url: https://api.example.com/v1\n    api_key: k\n',
      'https://api.example.com/v1/models',
      'authorization',
      'Bearer k',
    ],
    [
      'anthropic',
      '  - id: p\n    type: anthropic\n    base_url: https://api.anthropic.com/v1\n    api_key: k\n',
      'https://api.anthropic.com/v1/models',
      'x-api-key',
      'k',
    ],
    [
      'gemini',
      '  - id: p\n    type: gemini\n    base_url: https://generativelanguage.googleapis.com/v1beta\n    api_key: k\n',
      'https://generativelanguage.googleapis.com/v1beta/models',
      'x-goog-api-key',
      'k',
    ],
    [
      'ollama',
      '  - id: p\n    type: ollama\n    base_url: http://127.0.0.1:11434/v1\n',
      'http://127.0.0.1:11434/api/tags',
      undefined,
      undefined,
    ],
    [
      'azure-openai',
      '  - id: p\n    type: azure-openai\n    base_url: https://res.openai.azure.com\n    api_key: k\n',
      'https://res.openai.azure.com/openai/models?api-version=2024-10-21',
      'api-key',
      'k',
    ],
    [
      'azure-openai v1',
      '  - id: p\n    type: azure-openai\n    base_url: https://res.openai.azure.com/openai\n    api_key: k\n    options: { api_version: v1 }\n',
      'https://res.openai.azure.com/openai/v1/models',
      'api-key',
      'k',
    ],
    [
      'bedrock (API key)',
      '  - id: p\n    type: bedrock\n    base_url: https://bedrock-runtime.eu-west-1.amazonaws.com\n    api_key: k\n',
      'https://bedrock.eu-west-1.amazonaws.com/foundation-models',
      'authorization',
      'Bearer k',
    ],
  ])('%s', async (_name, yaml, url, header, value) => {
    const provider = providerOf(yaml);
    const call = await registry.get(provider.type)!.buildModelListRequest!(provider, new Date(0));
    expect(call.method).toBe('GET');
    expect(call.url).toBe(url);
    if (header) expect(call.headers[header]).toBe(value);
  });

  it('bedrock with access keys signs the list call with SigV4 for the control-plane host', async () => {
    const provider = providerOf(
      '  - id: p\n    type: bedrock\n    base_url: https://bedrock-runtime.us-west-2.amazonaws.com\n    options: { access_key_id: AKIDEXAMPLE, secret_access_key: secret }\n',
    );
    const call = await registry.get('bedrock')!.buildModelListRequest!(provider, new Date(Date.UTC(2026, 0, 1)));
    expect(call.url).toBe('https://bedrock.us-west-2.amazonaws.com/foundation-models');
    expect(call.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20260101\/us-west-2\/bedrock\/aws4_request, SignedHeaders=\S*host\S*, Signature=[0-9a-f]{64}$/,
    );
  });
});

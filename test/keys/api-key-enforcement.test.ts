import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { createLogger } from '../../src/shared/logger.js';
import type { Clock } from '../../src/shared/clock.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { AccountClient, requestJson } from '../helpers/account-client.js';
import { KEY_TEST_CONFIG_EXTRA } from '../helpers/key-test-config.js';

/**
 * A user signs up, creates keys through the account API and uses them from the official openai
 * SDK: allowed_models, disabled, expired (fake clock), deleted and unknown keys are enforced on /v1.
 * Every log line, at trace level, is captured and searched for the full keys at the end.
 */
let upstream: MockUpstream;
let gateway: TestGateway;
let account: AccountClient;
let now = Date.now();
const clock: Clock = { now: () => now };
const logLines: string[] = [];
const fullKeys: string[] = [];

beforeAll(async () => {
  upstream = await startMockUpstream({ scenario: { chunkCount: 3 } });
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      logLines.push(String(chunk));
      callback();
    },
  });
  gateway = await startTestGateway({
    configText: testConfigText(upstream.url, KEY_TEST_CONFIG_EXTRA),
    deps: { clock, logger: createLogger('trace', sink) },
  });
  account = await AccountClient.signUp(gateway.url);
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function createKey(body: Record<string, unknown>): Promise<{ key_id: string; key: string }> {
  const response = await account.request('POST', '/api-account/user/api-keys', body);
  expect(response.status).toBe(201);
  fullKeys.push(response.body.key);
  return response.body;
}

function sdk(apiKey: string): OpenAI {
  return new OpenAI({ apiKey, baseURL: gateway.baseURL, maxRetries: 0, timeout: 10_000 });
}

const messages = [{ role: 'user' as const, content: 'hello' }];

async function expectFailure(call: Promise<unknown>, status: number, code: string): Promise<void> {
  const error = await call.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OpenAI.APIError);
  expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(status);
  expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe(code);
}

describe('API keys enforced on /v1 through the openai SDK', () => {
  it('a key with allowed_models globs reaches matching models and gets 403 model_not_allowed for others', async () => {
    const { key } = await createKey({ name: 'globbed', allowed_models: ['test/*'] });
    const client = sdk(key);
    const answer = await client.chat.completions.create({ model: 'test/chat', messages });
    expect(answer.choices[0].message.content).toBeTruthy();
    const other = await client.chat.completions.create({ model: 'test/other', messages });
    expect(other.model).toBe('test/other');
    await expectFailure(
      client.chat.completions.create({ model: 'elsewhere/model', messages }),
      403,
      'model_not_allowed',
    );
    // Streams are refused the same way, before any byte.
    await expectFailure(
      client.chat.completions.create({ model: 'elsewhere/model', messages, stream: true }),
      403,
      'model_not_allowed',
    );
  });

  it('an exact allowed model does not match its prefix relatives', async () => {
    const { key } = await createKey({ name: 'exact', allowed_models: ['test/chat'] });
    await expect(sdk(key).chat.completions.create({ model: 'test/chat', messages })).resolves.toBeTruthy();
    await expectFailure(sdk(key).chat.completions.create({ model: 'test/other', messages }), 403, 'model_not_allowed');
  });

  it('a disabled key gets 403 key_disabled at once, and works again when enabled', async () => {
    const { key, key_id } = await createKey({ name: 'toggled' });
    const client = sdk(key);
    await client.chat.completions.create({ model: 'test/chat', messages });
    expect((await account.request('PATCH', `/api-account/user/api-keys/${key_id}`, { disabled: true })).status).toBe(
      200,
    );
    await expectFailure(client.chat.completions.create({ model: 'test/chat', messages }), 403, 'key_disabled');
    await account.request('PATCH', `/api-account/user/api-keys/${key_id}`, { disabled: false });
    await expect(client.chat.completions.create({ model: 'test/chat', messages })).resolves.toBeTruthy();
  });

  it('a key past its expiration gets 403 key_expired and shows as expired (fake clock)', async () => {
    const expiration = new Date(now + 60 * 60_000).toISOString();
    const { key, key_id } = await createKey({ name: 'short-lived', expiration });
    const client = sdk(key);
    await client.chat.completions.create({ model: 'test/chat', messages });
    now += 59 * 60_000;
    await expect(client.chat.completions.create({ model: 'test/chat', messages })).resolves.toBeTruthy();
    now += 2 * 60_000;
    await expectFailure(client.chat.completions.create({ model: 'test/chat', messages }), 403, 'key_expired');
    expect((await account.request('GET', `/api-account/user/api-keys/${key_id}`)).body.status).toBe('expired');
    // Extending it brings it back.
    await account.request('PATCH', `/api-account/user/api-keys/${key_id}`, {
      expiration: new Date(now + 86_400_000).toISOString(),
    });
    await expect(client.chat.completions.create({ model: 'test/chat', messages })).resolves.toBeTruthy();
  });

  it('a deleted key and an unknown key both get the same 401', async () => {
    const { key, key_id } = await createKey({ name: 'deleted' });
    const client = sdk(key);
    await client.chat.completions.create({ model: 'test/chat', messages });
    await account.request('DELETE', `/api-account/user/api-keys/${key_id}`);
    await expectFailure(client.chat.completions.create({ model: 'test/chat', messages }), 401, 'invalid_api_key');
    await expectFailure(
      sdk(`sk-gw-${'A'.repeat(40)}`).chat.completions.create({ model: 'test/chat', messages }),
      401,
      'invalid_api_key',
    );
    await expectFailure(sdk('not-even-a-key').models.list(), 401, 'invalid_api_key');
  });

  it('routing settings made through the API take effect: manual mode answers with the default model', async () => {
    const { key, key_id } = await createKey({
      name: 'manual',
      routing_mode: 'manual',
      default_models: [{ model_id: 'test/other', priority: 1 }],
    });
    const { data, response } = await sdk(key).chat.completions.create({ model: 'test/chat', messages }).withResponse();
    expect(data.model).toBe('test/other');
    expect(response.headers.get('x-gateway-model')).toBe('test/other');
    await account.request('PATCH', `/api-account/user/api-keys/${key_id}`, { routing_mode: 'code' });
    expect((await sdk(key).chat.completions.create({ model: 'test/chat', messages })).model).toBe('test/chat');
  });

  it('records when a key was last used', async () => {
    const { key, key_id } = await createKey({ name: 'used' });
    await sdk(key).chat.completions.create({ model: 'test/chat', messages });
    await gateway.gateway.keyCache.stop();
    await gateway.gateway.keyCache.start();
    const shown = (await account.request('GET', `/api-account/user/api-keys/${key_id}`)).body;
    expect(Date.parse(shown.last_used_at)).toBe(now);
  });

  it('never writes a full key to the logs, even when requests fail', async () => {
    const { key } = await createKey({ name: 'logged' });
    upstream.setScenario({ failure: { kind: 'status', status: 500 } });
    const failed = await sdk(key)
      .chat.completions.create({ model: 'test/chat', messages })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect((failed as InstanceType<typeof OpenAI.APIError>).status).toBeGreaterThanOrEqual(500);
    upstream.setScenario({ chunkCount: 3 });
    await requestJson(
      gateway.url,
      'POST',
      '/v1/chat/completions',
      { model: 'test/chat', messages },
      { 'x-api-key': key, 'content-type': 'application/json' },
    );
    await requestJson(gateway.url, 'GET', `/v1/models?key=${encodeURIComponent(key)}`, undefined, {
      authorization: `Bearer ${key}x`,
    });
    expect(fullKeys.length).toBeGreaterThanOrEqual(8);
    const logs = logLines.join('');
    // The upstream failure was logged, so the search below looked at real log lines.
    expect(logs).toContain('upstream failure');
    for (const fullKey of [...fullKeys, gateway.apiKey]) {
      expect(logs).not.toContain(fullKey);
      // Nor the secret part on its own.
      expect(logs).not.toContain(fullKey.slice('sk-gw-'.length));
    }
  });
});

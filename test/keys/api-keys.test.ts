import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { AccountClient, requestJson } from '../helpers/account-client.js';
import { EVERY_FIELD, FUTURE, KEY_TEST_CONFIG_EXTRA } from '../helpers/key-test-config.js';

/** The key API, part 1: create (every field, every validation error), list and get. */
let upstream: MockUpstream;
let gateway: TestGateway;
let alice: AccountClient;

beforeAll(async () => {
  upstream = await startMockUpstream({ scenario: { chunkCount: 3 } });
  gateway = await startTestGateway({ configText: testConfigText(upstream.url, KEY_TEST_CONFIG_EXTRA) });
  alice = await AccountClient.signUp(gateway.url);
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe('POST /api-account/user/api-keys', () => {
  it('creates a key with every field and shows the full key once', async () => {
    const response = await alice.request('POST', '/api-account/user/api-keys', EVERY_FIELD);
    expect(response.status).toBe(201);
    const key = response.body;
    expect(key.key).toMatch(/^sk-gw-[0-9A-Za-z]{40}$/);
    expect(key.masked_key).toBe(`${key.key.slice(0, 10)}…${key.key.slice(-4)}`);
    expect(key).toMatchObject({
      name: 'production',
      description: 'the main service',
      status: 'active',
      disabled: false,
      routing_mode: 'code',
      allowed_models: ['test/*', 'elsewhere/model'],
      template_id: 'starter',
      default_models: [{ model_id: 'test/other', priority: 1 }],
      rpm_limit: 60,
      tpm_limit: 100000,
      monthly_quota: 12.5,
      credit_limit: 100.123456,
      spend_this_month: 0,
      spend_total: 0,
      expiration: '2999-01-01T00:00:00.000Z',
      last_used_at: null,
    });
    expect(key.key_id).toMatch(/^key_/);
    expect(Date.parse(key.created_at)).toBeGreaterThan(Date.now() - 60_000);

    const row = await gateway.testStore.store.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', key.key_id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(key.key);
    expect(row.monthly_quota_micros).toBe(12_500_000);
    expect(row.credit_limit_micros).toBe(100_123_456);
  });

  it('fills defaults from the name alone, and default models from a template', async () => {
    const plain = await alice.request('POST', '/api-account/user/api-keys', { name: 'plain' });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({
      routing_mode: 'code',
      allowed_models: null,
      default_models: [],
      template_id: null,
      rpm_limit: null,
      monthly_quota: null,
      expiration: null,
      description: '',
    });

    const templated = await alice.request('POST', '/api-account/user/api-keys', {
      name: 'templated',
      routing_mode: 'manual',
      template_id: 'starter',
    });
    expect(templated.status).toBe(201);
    expect(templated.body.default_models).toEqual([
      { model_id: 'test/chat', priority: 1 },
      { model_id: 'test/other', priority: 2 },
    ]);
    // A template's models that this gateway does not serve are left out.
    const partly = await alice.request('POST', '/api-account/user/api-keys', {
      name: 'partly',
      template_id: 'balanced',
    });
    expect(partly.body.default_models).toEqual([{ model_id: 'test/chat', priority: 1 }]);
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['name missing', {}, 'name'],
    ['name empty', { name: '' }, 'name'],
    ['name only spaces', { name: '   ' }, 'name'],
    ['name over 100 characters', { name: 'x'.repeat(101) }, 'name'],
    ['name not a string', { name: 42 }, 'name'],
    ['description not a string', { name: 'k', description: 5 }, 'description'],
    ['routing_mode unknown', { name: 'k', routing_mode: 'auto' }, 'routing_mode'],
    ['allowed_models not an array', { name: 'k', allowed_models: 'test/*' }, 'allowed_models'],
    ['allowed_models empty', { name: 'k', allowed_models: [] }, 'allowed_models'],
    ['allowed_models item with a space', { name: 'k', allowed_models: ['test chat'] }, 'allowed_models[0]'],
    ['rpm_limit zero', { name: 'k', rpm_limit: 0 }, 'rpm_limit'],
    ['rpm_limit negative', { name: 'k', rpm_limit: -5 }, 'rpm_limit'],
    ['rpm_limit fractional', { name: 'k', rpm_limit: 1.5 }, 'rpm_limit'],
    ['rpm_limit a string', { name: 'k', rpm_limit: '60' }, 'rpm_limit'],
    ['tpm_limit zero', { name: 'k', tpm_limit: 0 }, 'tpm_limit'],
    ['tpm_limit fractional', { name: 'k', tpm_limit: 10.5 }, 'tpm_limit'],
    ['monthly_quota negative', { name: 'k', monthly_quota: -1 }, 'monthly_quota'],
    ['monthly_quota a string', { name: 'k', monthly_quota: '10' }, 'monthly_quota'],
    ['monthly_quota below a micro-dollar', { name: 'k', monthly_quota: 0.0000001 }, 'monthly_quota'],
    ['credit_limit negative', { name: 'k', credit_limit: -0.01 }, 'credit_limit'],
    ['expiration not a date', { name: 'k', expiration: 'next tuesday' }, 'expiration'],
    ['expiration in the past', { name: 'k', expiration: '2001-01-01T00:00:00Z' }, 'expiration'],
    ['expiration a number', { name: 'k', expiration: 1893456000 }, 'expiration'],
    ['template_id unknown', { name: 'k', template_id: 'no-such-template' }, 'template_id'],
    ['template_id with no served model', { name: 'k', template_id: 'nothing-served' }, 'template_id'],
    [
      'default_models not an array',
      { name: 'k', default_models: { model_id: 'test/chat', priority: 1 } },
      'default_models',
    ],
    [
      'default_models item without model_id',
      { name: 'k', default_models: [{ priority: 1 }] },
      'default_models[0].model_id',
    ],
    [
      'default_models item without priority',
      { name: 'k', default_models: [{ model_id: 'test/chat' }] },
      'default_models[0].priority',
    ],
    [
      'default_models unknown model',
      { name: 'k', default_models: [{ model_id: 'no/such-model', priority: 1 }] },
      'default_models[0].model_id',
    ],
    [
      'default_models priority zero',
      { name: 'k', default_models: [{ model_id: 'test/chat', priority: 0 }] },
      'default_models[0].priority',
    ],
    [
      'default_models priority fractional',
      { name: 'k', default_models: [{ model_id: 'test/chat', priority: 1.5 }] },
      'default_models[0].priority',
    ],
    [
      'default_models duplicate priority',
      {
        name: 'k',
        default_models: [
          { model_id: 'test/chat', priority: 1 },
          { model_id: 'test/other', priority: 1 },
        ],
      },
      'default_models',
    ],
    [
      'default_models the same model twice',
      {
        name: 'k',
        default_models: [
          { model_id: 'test/chat', priority: 1 },
          { model_id: 'test/chat', priority: 2 },
        ],
      },
      'default_models[1].model_id',
    ],
    [
      'default_models outside allowed_models',
      { name: 'k', allowed_models: ['test/chat'], default_models: [{ model_id: 'test/other', priority: 1 }] },
      'default_models[0].model_id',
    ],
    ['manual routing without default models', { name: 'k', routing_mode: 'manual' }, 'default_models'],
    ['an unknown field', { name: 'k', expiry: FUTURE }, 'expiry'],
    [
      'expires_at (the alias) differing from expiration',
      { name: 'k', expiration: FUTURE, expires_at: '2998-01-01T00:00:00Z' },
      'expires_at',
    ],
  ];

  it.each(invalid)('answers 400 naming the parameter: %s', async (_label, body, param) => {
    const before = (await alice.request('GET', '/api-account/user/api-keys')).body.data.length;
    const response = await alice.request('POST', '/api-account/user/api-keys', body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect(response.body.error.message).toEqual(expect.any(String));
    expect((await alice.request('GET', '/api-account/user/api-keys')).body.data.length).toBe(before);
  });

  it('answers 400 to a body that is not JSON', async () => {
    const response = await alice.request('POST', '/api-account/user/api-keys', '{"name": ');
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_json');
  });
});

describe('list and get', () => {
  it("lists the user's keys masked, newest first, never with the full key", async () => {
    const created = (await alice.request('POST', '/api-account/user/api-keys', { name: 'listed' })).body;
    const list = await alice.request('GET', '/api-account/user/api-keys');
    expect(list.status).toBe(200);
    expect(list.body.data[0].key_id).toBe(created.key_id);
    expect(list.text).not.toContain(created.key);
    for (const key of list.body.data) {
      expect(key).not.toHaveProperty('key');
      expect(key.masked_key).toMatch(/^sk-gw-[0-9A-Za-z]{4}…[0-9A-Za-z]{4}$/);
      expect(key).toMatchObject({ status: 'active', spend_this_month: 0, spend_total: 0 });
    }

    const one = await alice.request('GET', `/api-account/user/api-keys/${created.key_id}`);
    expect(one.status).toBe(200);
    expect(one.text).not.toContain(created.key);
    const { key: _full, ...withoutFull } = created;
    expect(one.body).toEqual(withoutFull);
  });

  it('answers 404 for an unknown key id and 401 without a session', async () => {
    const missing = await alice.request('GET', '/api-account/user/api-keys/key_doesnotexist');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'api_key_not_found', param: 'key_id' });
    const anonymous = await requestJson(gateway.url, 'GET', '/api-account/user/api-keys');
    expect(anonymous.status).toBe(401);
    const apiKeyIsNoSession = await requestJson(gateway.url, 'GET', '/api-account/user/api-keys', undefined, {
      authorization: `Bearer ${gateway.apiKey}`,
    });
    expect(apiKeyIsNoSession.status).toBe(401);
  });
});

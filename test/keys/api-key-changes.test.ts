import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { AccountClient, requestJson } from '../helpers/account-client.js';
import { EVERY_FIELD, KEY_TEST_CONFIG_EXTRA } from '../helpers/key-test-config.js';

/** The key API, part 2: PATCH, PUT default-models, DELETE, isolation between users, templates, OpenAPI. */
let upstream: MockUpstream;
let gateway: TestGateway;
let alice: AccountClient;
let bob: AccountClient;

beforeAll(async () => {
  upstream = await startMockUpstream({ scenario: { chunkCount: 3 } });
  gateway = await startTestGateway({ configText: testConfigText(upstream.url, KEY_TEST_CONFIG_EXTRA) });
  alice = await AccountClient.signUp(gateway.url);
  bob = await AccountClient.signUp(gateway.url);
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe('PATCH /api-account/user/api-keys/{key_id}', () => {
  it('changes name, description, routing, limits, expiration and disabled; null clears; the rest stays', async () => {
    const created = (await alice.request('POST', '/api-account/user/api-keys', EVERY_FIELD)).body;
    const patched = await alice.request('PATCH', `/api-account/user/api-keys/${created.key_id}`, {
      name: 'renamed',
      description: 'new words',
      routing_mode: 'manual',
      allowed_models: null,
      default_models: [{ model_id: 'elsewhere/model', priority: 3 }],
      rpm_limit: null,
      tpm_limit: 5,
      monthly_quota: 0,
      credit_limit: null,
      expiration: null,
      disabled: true,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      key_id: created.key_id,
      masked_key: created.masked_key,
      name: 'renamed',
      description: 'new words',
      routing_mode: 'manual',
      allowed_models: null,
      default_models: [{ model_id: 'elsewhere/model', priority: 3 }],
      template_id: null,
      rpm_limit: null,
      tpm_limit: 5,
      monthly_quota: 0,
      credit_limit: null,
      expiration: null,
      disabled: true,
      status: 'disabled',
    });
    expect(patched.text).not.toContain(created.key);

    const onlyName = await alice.request('PATCH', `/api-account/user/api-keys/${created.key_id}`, {
      name: 'again',
      disabled: false,
    });
    expect(onlyName.body).toMatchObject({
      name: 'again',
      status: 'active',
      routing_mode: 'manual',
      tpm_limit: 5,
      description: 'new words',
    });
    expect((await alice.request('GET', `/api-account/user/api-keys/${created.key_id}`)).body).toEqual(onlyName.body);
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['name empty', { name: '' }, 'name'],
    ['routing_mode unknown', { routing_mode: 'random' }, 'routing_mode'],
    ['rpm_limit zero', { rpm_limit: 0 }, 'rpm_limit'],
    ['tpm_limit negative', { tpm_limit: -1 }, 'tpm_limit'],
    ['monthly_quota negative', { monthly_quota: -3 }, 'monthly_quota'],
    ['credit_limit a string', { credit_limit: 'lots' }, 'credit_limit'],
    ['expiration in the past', { expiration: '2020-02-02T00:00:00Z' }, 'expiration'],
    ['disabled not a boolean', { disabled: 'yes' }, 'disabled'],
    ['template_id unknown', { template_id: 'missing' }, 'template_id'],
    [
      'default_models duplicate priority',
      {
        default_models: [
          { model_id: 'test/chat', priority: 2 },
          { model_id: 'test/other', priority: 2 },
        ],
      },
      'default_models',
    ],
    ['manual with the default models emptied', { routing_mode: 'manual', default_models: [] }, 'default_models'],
    ['allowed_models excluding a default model', { allowed_models: ['elsewhere/*'] }, 'default_models[0].model_id'],
    ['key_id (not changeable)', { key_id: 'key_other' }, 'key_id'],
  ];

  it.each(invalid)('answers 400 naming the parameter and changes nothing: %s', async (_label, body, param) => {
    const created = (
      await alice.request('POST', '/api-account/user/api-keys', {
        name: 'patch target',
        default_models: [{ model_id: 'test/chat', priority: 1 }],
      })
    ).body;
    const response = await alice.request('PATCH', `/api-account/user/api-keys/${created.key_id}`, body);
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe(param);
    const { key: _full, ...unchanged } = created;
    expect((await alice.request('GET', `/api-account/user/api-keys/${created.key_id}`)).body).toEqual(unchanged);
  });
});

describe('PUT /api-account/user/api-keys/{key_id}/default-models', () => {
  it("stores a list, or a template's list with the template it came from", async () => {
    const created = (await alice.request('POST', '/api-account/user/api-keys', { name: 'routing' })).body;
    const path = `/api-account/user/api-keys/${created.key_id}/default-models`;
    const fromList = await alice.request('PUT', path, {
      default_models: [
        { model_id: 'test/other', priority: 2 },
        { model_id: 'test/chat', priority: 1 },
      ],
    });
    expect(fromList.status).toBe(200);
    expect(fromList.body).toEqual({
      key_id: created.key_id,
      routing_mode: 'code',
      template_id: null,
      default_models: [
        { model_id: 'test/chat', priority: 1 },
        { model_id: 'test/other', priority: 2 },
      ],
    });
    const fromTemplate = await alice.request('PUT', path, { template_id: 'starter' });
    expect(fromTemplate.body).toMatchObject({
      template_id: 'starter',
      default_models: [
        { model_id: 'test/chat', priority: 1 },
        { model_id: 'test/other', priority: 2 },
      ],
    });
    const both = await alice.request('PUT', path, {
      template_id: 'starter',
      default_models: [{ model_id: 'test/other', priority: 1 }],
    });
    expect(both.body).toMatchObject({
      template_id: 'starter',
      default_models: [{ model_id: 'test/other', priority: 1 }],
    });
    const cleared = await alice.request('PUT', path, { default_models: [] });
    expect(cleared.body).toMatchObject({ template_id: null, default_models: [] });
    expect((await alice.request('GET', `/api-account/user/api-keys/${created.key_id}`)).body.default_models).toEqual(
      [],
    );
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    [
      'duplicate priority',
      {
        default_models: [
          { model_id: 'test/chat', priority: 1 },
          { model_id: 'test/other', priority: 1 },
        ],
      },
      'default_models',
    ],
    ['neither list nor template', {}, 'default_models'],
    ['unknown model', { default_models: [{ model_id: 'ghost/model', priority: 1 }] }, 'default_models[0].model_id'],
    [
      'priority not positive',
      { default_models: [{ model_id: 'test/chat', priority: -1 }] },
      'default_models[0].priority',
    ],
    ['unknown template', { template_id: 'ghost' }, 'template_id'],
    [
      'item with an extra field',
      { default_models: [{ model_id: 'test/chat', priority: 1, weight: 3 }] },
      'default_models[0].weight',
    ],
  ];

  it.each(invalid)('answers 400 naming the parameter: %s', async (_label, body, param) => {
    const created = (await alice.request('POST', '/api-account/user/api-keys', { name: 'put target' })).body;
    const response = await alice.request('PUT', `/api-account/user/api-keys/${created.key_id}/default-models`, body);
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe(param);
  });
});

describe('DELETE /api-account/user/api-keys/{key_id}', () => {
  it('revokes the key for good: gone from list and get, 401 on /v1, a second delete is 404', async () => {
    const created = (await alice.request('POST', '/api-account/user/api-keys', { name: 'doomed' })).body;
    const models = await requestJson(gateway.url, 'GET', '/v1/models', undefined, {
      authorization: `Bearer ${created.key}`,
    });
    expect(models.status).toBe(200);

    const deleted = await alice.request('DELETE', `/api-account/user/api-keys/${created.key_id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ key_id: created.key_id, deleted: true });
    expect((await alice.request('GET', `/api-account/user/api-keys/${created.key_id}`)).status).toBe(404);
    expect(
      (await alice.request('PATCH', `/api-account/user/api-keys/${created.key_id}`, { name: 'back' })).status,
    ).toBe(404);
    expect(
      (await alice.request('GET', '/api-account/user/api-keys')).body.data.map((key: { key_id: string }) => key.key_id),
    ).not.toContain(created.key_id);
    expect((await alice.request('DELETE', `/api-account/user/api-keys/${created.key_id}`)).status).toBe(404);

    const after = await requestJson(gateway.url, 'GET', '/v1/models', undefined, {
      authorization: `Bearer ${created.key}`,
    });
    expect(after.status).toBe(401);
    expect(after.body.error.type).toBe('authentication_error');
  });
});

describe('isolation between users', () => {
  it("never shows or changes another user's key: 404, as if it did not exist", async () => {
    const created = (await alice.request('POST', '/api-account/user/api-keys', { name: 'alice only' })).body;
    const base = `/api-account/user/api-keys/${created.key_id}`;
    const attempts = [
      await bob.request('GET', base),
      await bob.request('PATCH', base, { name: 'stolen', disabled: true }),
      await bob.request('PUT', `${base}/default-models`, { default_models: [{ model_id: 'test/chat', priority: 1 }] }),
      await bob.request('DELETE', base),
    ];
    for (const attempt of attempts) {
      expect(attempt.status).toBe(404);
      expect(attempt.body.error.code).toBe('api_key_not_found');
    }
    expect((await bob.request('GET', '/api-account/user/api-keys')).body.data).toEqual([]);
    const { key: _full, ...unchanged } = created;
    expect((await alice.request('GET', base)).body).toEqual(unchanged);
    const stillWorks = await requestJson(gateway.url, 'GET', '/v1/models', undefined, {
      authorization: `Bearer ${created.key}`,
    });
    expect(stillWorks.status).toBe(200);
  });
});

describe('GET /api-account/routing-templates', () => {
  it('lists the built-in templates with the config overrides, saying which models are served here', async () => {
    const response = await requestJson(gateway.url, 'GET', '/api-account/routing-templates');
    expect(response.status).toBe(200);
    const byId = new Map(response.body.data.map((template: { id: string }) => [template.id, template]));
    expect(byId.get('starter')).toEqual({
      id: 'starter',
      name: 'Starter',
      description: 'The two test models',
      default_models: [
        { model_id: 'test/chat', priority: 1, available: true },
        { model_id: 'test/other', priority: 2, available: true },
      ],
    });
    expect(byId.get('balanced')).toMatchObject({
      name: 'Balanced here',
      default_models: [
        { model_id: 'test/chat', available: true },
        { model_id: 'not/served', available: false },
      ],
    });
    expect(byId.has('frontier')).toBe(true);
    expect(byId.has('budget')).toBe(true);
  });
});

describe('the OpenAPI document', () => {
  it('documents every key endpoint with its request schema', async () => {
    const document = (await requestJson(gateway.url, 'GET', '/openapi.json')).body;
    const keys = document.paths['/api-account/user/api-keys'];
    expect(keys.post.requestBody.content['application/json'].schema.properties).toHaveProperty('default_models');
    expect(keys.get).toBeDefined();
    expect(document.paths['/api-account/user/api-keys/{key_id}']).toHaveProperty('patch');
    expect(document.paths['/api-account/user/api-keys/{key_id}']).toHaveProperty('delete');
    expect(document.paths['/api-account/user/api-keys/{key_id}/default-models']).toHaveProperty('put');
    expect(document.paths['/api-account/routing-templates']).toHaveProperty('get');
  });
});

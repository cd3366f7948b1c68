import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { AccountClient, requestJson } from '../helpers/account-client.js';
import { STORE_KINDS } from '../helpers/test-store.js';

/** Issue 17, item 5: key rotation — a new secret for the same key id and settings, the old one valid for a grace period. */
describe.each(STORE_KINDS)('API key rotation (%s)', (storeKind) => {
  let upstream: MockUpstream;
  let gateway: TestGateway;
  let alice: AccountClient;
  let bob: AccountClient;

  const chat = (key: string) =>
    requestJson(
      gateway.url,
      'POST',
      '/v1/chat/completions',
      { model: 'test/chat', messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${key}` },
    );
  const rotate = (client: AccountClient, keyId: string, body?: unknown) =>
    client.request('POST', `/api-account/user/api-keys/${keyId}/rotate`, body);

  beforeAll(async () => {
    upstream = await startMockUpstream({ scenario: { chunkCount: 2 } });
    gateway = await startTestGateway({ configText: testConfigText(upstream.url), storeKind });
    alice = await AccountClient.signUp(gateway.url);
    bob = await AccountClient.signUp(gateway.url);
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('gives a new secret to the same key id with the same settings; the old one works through the grace period', async () => {
    const created = await alice.request('POST', '/api-account/user/api-keys', {
      name: 'rotating',
      allowed_models: ['test/*'],
      rpm_limit: 100,
      monthly_quota: 5,
      expiration: '2999-01-01T00:00:00Z',
    });
    const oldKey = created.body.key;
    expect((await chat(oldKey)).status).toBe(200);

    const before = Date.now();
    const rotated = await rotate(alice, created.body.key_id);
    expect(rotated.status).toBe(200);
    const newKey = rotated.body.key;
    expect(newKey).toMatch(/^sk-gw-[0-9A-Za-z]{40}$/);
    expect(newKey).not.toBe(oldKey);
    // The settings; not spend or last_used_at, which the request above may have moved meanwhile.
    const settingNames = [
      'key_id',
      'name',
      'description',
      'status',
      'disabled',
      'routing_mode',
      'allowed_models',
      'template_id',
      'default_models',
      'rpm_limit',
      'tpm_limit',
      'monthly_quota',
      'credit_limit',
      'created_at',
      'expiration',
    ];
    const settings = Object.fromEntries(settingNames.map((name) => [name, created.body[name]]));
    expect(settings).toMatchObject({ name: 'rotating', rpm_limit: 100, monthly_quota: 5 });
    const oldMasked = created.body.masked_key;
    expect(rotated.body).toMatchObject(settings);
    expect(rotated.body.masked_key).not.toBe(oldMasked);
    expect(rotated.body.masked_key).toBe(`${newKey.slice(0, 10)}…${newKey.slice(-4)}`);
    // Default grace period: 24 hours.
    const graceEnd = Date.parse(rotated.body.previous_key_expiration);
    expect(graceEnd - before).toBeGreaterThanOrEqual(86_400_000 - 1000);
    expect(graceEnd - Date.now()).toBeLessThanOrEqual(86_400_000);

    expect((await chat(newKey)).status).toBe(200);
    expect((await chat(oldKey)).status).toBe(200);
    const read = await alice.request('GET', `/api-account/user/api-keys/${created.body.key_id}`);
    expect(read.body.previous_key_expiration).toBe(rotated.body.previous_key_expiration);
    expect(read.text).not.toContain(newKey);
    expect(JSON.stringify(await gateway.testStore.store.db.selectFrom('api_keys').selectAll().execute())).not.toContain(
      newKey,
    );
  });

  it('the old secret stops when the grace period ends; a second rotation ends the first grace at once', async () => {
    const first = (await alice.request('POST', '/api-account/user/api-keys', { name: 'twice' })).body;
    const second = (await rotate(alice, first.key_id)).body;
    expect((await chat(first.key)).status).toBe(200);

    const third = await rotate(alice, first.key_id, { grace_period_seconds: 1 });
    expect(third.status).toBe(200);
    // The first secret was the previous one; the second rotation replaced it.
    const dropped = await chat(first.key);
    expect(dropped.status).toBe(401);
    expect(dropped.body.error.code).toBe('invalid_api_key');
    expect((await chat(second.key)).status).toBe(200);
    expect((await chat(third.body.key)).status).toBe(200);

    await new Promise((resolve) => setTimeout(resolve, 1200));
    const expired = await chat(second.key);
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('invalid_api_key');
    expect((await chat(third.body.key)).status).toBe(200);
    const read = await alice.request('GET', `/api-account/user/api-keys/${first.key_id}`);
    expect(read.body.previous_key_expiration).toBeNull();
  });

  it('rotations at the same time run one after the other: the last secret and the one before it work', async () => {
    const created = (await alice.request('POST', '/api-account/user/api-keys', { name: 'raced' })).body;
    const rotations = await Promise.all([1, 2, 3].map(() => rotate(alice, created.key_id)));
    expect(rotations.map((response) => response.status)).toEqual([200, 200, 200]);
    const keys = rotations.map((response) => response.body.key as string);
    expect(new Set(keys).size).toBe(3);
    const current = (await alice.request('GET', `/api-account/user/api-keys/${created.key_id}`)).body.masked_key;
    expect(keys.map((key) => `${key.slice(0, 10)}…${key.slice(-4)}`)).toContain(current);
    const statuses = await Promise.all(keys.map(async (key) => (await chat(key)).status));
    expect(statuses.filter((status) => status === 200)).toHaveLength(2);
    expect(statuses.filter((status) => status === 401)).toHaveLength(1);
    expect((await chat(created.key)).status).toBe(401);
  });

  it('grace_period_seconds 0 ends the old secret at once', async () => {
    const created = (await alice.request('POST', '/api-account/user/api-keys', { name: 'no grace' })).body;
    const rotated = await rotate(alice, created.key_id, { grace_period_seconds: 0 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.previous_key_expiration).toBeNull();
    expect((await chat(created.key)).status).toBe(401);
    expect((await chat(rotated.body.key)).status).toBe(200);
  });

  it('changes and revocation reach the old secret too', async () => {
    const created = (await alice.request('POST', '/api-account/user/api-keys', { name: 'revoked later' })).body;
    const rotated = (await rotate(alice, created.key_id)).body;
    expect((await chat(created.key)).status).toBe(200);
    await alice.request('PATCH', `/api-account/user/api-keys/${created.key_id}`, { disabled: true });
    expect((await chat(created.key)).status).toBe(403);
    expect((await chat(rotated.key)).status).toBe(403);
    await alice.request('PATCH', `/api-account/user/api-keys/${created.key_id}`, { disabled: false });
    expect((await chat(created.key)).status).toBe(200);
    expect((await alice.request('DELETE', `/api-account/user/api-keys/${created.key_id}`)).status).toBe(200);
    expect((await chat(created.key)).status).toBe(401);
    expect((await chat(rotated.key)).status).toBe(401);
  });

  it('answers 404 for another user’s key or a revoked one, 400 for a bad grace period, 401 without a session', async () => {
    const created = (await alice.request('POST', '/api-account/user/api-keys', { name: 'mine' })).body;
    const stranger = await rotate(bob, created.key_id);
    expect(stranger.status).toBe(404);
    expect(stranger.body.error.code).toBe('api_key_not_found');
    expect((await chat(created.key)).status).toBe(200);

    for (const [body, param] of [
      [{ grace_period_seconds: 604_801 }, 'grace_period_seconds'],
      [{ grace_period_seconds: -1 }, 'grace_period_seconds'],
      [{ grace_period_seconds: 1.5 }, 'grace_period_seconds'],
      [{ grace: 10 }, 'grace'],
    ] as const) {
      const refused = await rotate(alice, created.key_id, body);
      expect(refused.status).toBe(400);
      expect(refused.body.error.param).toBe(param);
    }
    expect((await chat(created.key)).status).toBe(200);
    const anonymous = await requestJson(gateway.url, 'POST', `/api-account/user/api-keys/${created.key_id}/rotate`);
    expect(anonymous.status).toBe(401);
  });
});

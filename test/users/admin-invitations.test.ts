import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setRole } from '../../src/users/user-roles.js';
import { randomIdGenerator } from '../../src/shared/ids.js';
import { STORE_KINDS } from '../helpers/test-store.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { AccountClient, requestJson } from '../helpers/account-client.js';

const PASSWORD = 'plum-orbit-42-lantern';

/** Invitations through the admin API when sign-up is by invitation; on both stores. */
describe.each(STORE_KINDS)('admin invitations (%s)', (storeKind) => {
  let gateway: TestGateway;
  let admin: AccountClient;

  beforeAll(async () => {
    gateway = await startTestGateway({
      configText: testConfigText('http://127.0.0.1:9', 'auth:\n  sign_up: invite\n'),
      storeKind,
    });
    // Sign-up is closed to strangers here: the admin is the test gateway's own user.
    const signIn = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
      email: gateway.email,
      password: PASSWORD,
    });
    admin = new AccountClient(gateway.url, signIn.body.token, gateway.email);
    await setRole(gateway.testStore.store.db, gateway.userId, 'admin', Date.now());
  }, 60_000);
  afterAll(async () => gateway?.close());

  it('issues an invitation that signs up its address once, lists and withdraws them, and logs each', async () => {
    const email = `invitee-${randomIdGenerator.next('').toLowerCase()}@example.com`;
    const issued = await admin.request('POST', '/api-account/admin/invitations', { email, ttl_hours: 2 });
    expect(issued.status).toBe(200);
    expect(issued.body).toMatchObject({ email, used_at: null, token: expect.any(String) });
    expect(Date.parse(issued.body.expires_at) - Date.parse(issued.body.created_at)).toBe(2 * 3600 * 1000);
    expect(new URL(issued.body.link).searchParams.get('invite')).toBe(issued.body.token);

    const without = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-up/email', {
      email,
      password: PASSWORD,
    });
    expect(without.status).toBe(400);
    expect(without.body.error.code).toBe('invalid_invitation');
    const signUp = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-up/email', {
      email,
      password: PASSWORD,
      invite_token: issued.body.token,
    });
    expect(signUp.status).toBe(200);
    const listed = await admin.request('GET', '/api-account/admin/invitations');
    const used = listed.body.data.find((invitation: { id: string }) => invitation.id === issued.body.id);
    expect(used.used_at).toEqual(expect.any(String));
    expect(JSON.stringify(listed.body)).not.toContain(issued.body.token);

    const other = await admin.request('POST', '/api-account/admin/invitations', {
      email: `other-${randomIdGenerator.next('').toLowerCase()}@example.com`,
    });
    expect((await admin.request('DELETE', `/api-account/admin/invitations/${other.body.id}`)).body).toEqual({
      revoked: true,
    });
    const again = await admin.request('DELETE', `/api-account/admin/invitations/${other.body.id}`);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('invitation_not_found');
    // A used invitation cannot be withdrawn, and an existing account cannot be invited.
    expect((await admin.request('DELETE', `/api-account/admin/invitations/${issued.body.id}`)).status).toBe(404);
    const existing = await admin.request('POST', '/api-account/admin/invitations', { email });
    expect(existing.status).toBe(409);
    const badEmail = await admin.request('POST', '/api-account/admin/invitations', { email: 'nope' });
    expect(badEmail.status).toBe(400);

    const log = await admin.request('GET', '/api-account/admin/audit-log?limit=10');
    const actions = log.body.data.map((entry: { action: string; details: { invitation_id?: string } }) => [
      entry.action,
      entry.details.invitation_id,
    ]);
    expect(actions).toContainEqual(['invitation.create', issued.body.id]);
    expect(actions).toContainEqual(['invitation.revoke', other.body.id]);

    // Deleting the invited account erases its invitation (it holds the address) too.
    const signIn = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
      email,
      password: PASSWORD,
    });
    const invitee = new AccountClient(gateway.url, signIn.body.token, email);
    expect((await invitee.request('GET', '/api-account/admin/invitations')).status).toBe(403);
    expect((await invitee.request('DELETE', '/api-account/user/me', { password: PASSWORD })).status).toBe(200);
    const rows = await gateway.testStore.store.db.selectFrom('invitations').select('email').execute();
    expect(rows.map((row) => row.email)).not.toContain(email);
  });
});

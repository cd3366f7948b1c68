import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { requestJson } from '../helpers/account-client.js';
import { STORE_KINDS } from '../helpers/test-store.js';
import { randomId } from '../../src/shared/ids.js';
import { openStore } from '../../src/store/database.js';
import { findUserByEmail } from '../../src/users/user-repository.js';
import { parseAuthSettings } from '../../src/users/auth-settings.js';
import { runUsersCommand } from '../../src/cli/users-command.js';
import type { Runtime } from '../../src/gateway-runtime.js';

/**
 * Issue 16, finding 2 (accounts side): sign-up was open and could not be closed. `auth.sign_up`
 * is now `open` | `invite` | `closed` (CONTRACT §2); invitations are admin-issued, single-use and
 * expire.
 */
const PASSWORD = 'plum-orbit-42-lantern';
const freshEmail = () => `invitee-${randomId(10).toLowerCase()}@example.com`;

describe.each(STORE_KINDS)('auth.sign_up (%s)', (storeKind) => {
  let gateway: TestGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  const start = async (auth: string) => {
    gateway = await startTestGateway({ configText: testConfigText('http://127.0.0.1:9', auth), storeKind });
    return gateway;
  };
  const signUp = (body: Record<string, unknown>) =>
    requestJson(gateway!.url, 'POST', '/api-account/auth/sign-up/email', body);
  const signIn = (email: string, password = PASSWORD) =>
    requestJson(gateway!.url, 'POST', '/api-account/auth/sign-in/email', { email, password });

  it('closed: sign-up is refused 403 sign_up_closed and creates nothing; existing accounts still sign in', async () => {
    const { email, testStore } = await start('auth:\n  sign_up: closed\n');
    const stranger = freshEmail();
    const refused = await signUp({ email: stranger, password: PASSWORD });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'sign_up_closed' });
    expect(await findUserByEmail(testStore.store.db, stranger)).toBeUndefined();
    expect((await signIn(email)).status).toBe(200);
  });

  it('invite: only an admin-issued invitation for that email signs up, once, before it expires', async () => {
    const { testStore, gateway: app } = await start('auth:\n  sign_up: invite\n');
    const invitations = app.accounts.invitations;
    const email = freshEmail();

    const withoutInvitation = await signUp({ email, password: PASSWORD });
    expect(withoutInvitation.status).toBe(400);
    expect(withoutInvitation.body.error).toMatchObject({ code: 'invalid_invitation', param: 'invite_token' });

    const invitation = await invitations.issue(email);
    expect(invitation.link).toBe(
      `${gateway!.config.server.publicUrl}/sign-up?invite=${invitation.token}&email=${encodeURIComponent(email)}`,
    );
    // The token is not stored: only its hash is.
    const rows = await testStore.store.db.selectFrom('invitations').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(invitation.token);

    const otherEmail = await signUp({ email: freshEmail(), password: PASSWORD, invite_token: invitation.token });
    expect(otherEmail.body.error.code).toBe('invalid_invitation');
    const madeUp = await signUp({ email, password: PASSWORD, invite_token: 'x'.repeat(43) });
    expect(madeUp.body.error.code).toBe('invalid_invitation');
    // A refused password does not use the invitation up.
    const weak = await signUp({ email, password: 'password1234', invite_token: invitation.token });
    expect(weak.body.error.code).toBe('weak_password');

    const accepted = await signUp({ email: email.toUpperCase(), password: PASSWORD, invite_token: invitation.token });
    expect(accepted.status).toBe(200);
    expect((await signIn(email)).status).toBe(200);
    const used = (await invitations.list()).find((row) => row.id === invitation.id);
    expect(used?.usedAt).toEqual(expect.any(Number));

    const again = await signUp({ email, password: PASSWORD, invite_token: invitation.token });
    expect(again.body.error.code).toBe('invalid_invitation');

    const late = freshEmail();
    const expiring = await invitations.issue(late, 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const expired = await signUp({ email: late, password: PASSWORD, invite_token: expiring.token });
    expect(expired.body.error.code).toBe('invalid_invitation');
    expect(await findUserByEmail(testStore.store.db, late)).toBeUndefined();
  });

  it('invite: two sign-ups racing with one invitation make one account', async () => {
    const { gateway: app, testStore } = await start('auth:\n  sign_up: invite\n');
    const email = freshEmail();
    const invitation = await app.accounts.invitations.issue(email);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => signUp({ email, password: PASSWORD, invite_token: invitation.token })),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    const users = await testStore.store.db.selectFrom('user').select('id').where('email', '=', email).execute();
    expect(users).toHaveLength(1);
  });

  it('`gateway users invite <email>` prints the sign-up link, refuses an existing account, and the link signs up', async () => {
    const { testStore, config, auth, email: existing } = await start('auth:\n  sign_up: invite\n');
    // The CLI closes the store it is given, so it gets a handle of its own on the same database.
    const runtime = (): Promise<Runtime> =>
      Promise.resolve({
        config,
        environment: { production: false },
        store: openStore(testStore.url, { searchPath: testStore.searchPath }),
        auth,
        secret: 'unused',
        applied: [],
      });
    const invitee = freshEmail();
    let printed = '';
    await runUsersCommand('invite', [invitee], runtime, (text) => (printed += text));
    const link = new URL(printed.trim());
    expect(`${link.origin}${link.pathname}`).toBe(`${config.server.publicUrl}/sign-up`);
    expect(link.searchParams.get('email')).toBe(invitee);
    const token = link.searchParams.get('invite')!;
    expect((await signUp({ email: invitee, password: PASSWORD, invite_token: token })).status).toBe(200);
    expect((await signIn(invitee)).status).toBe(200);

    await expect(runUsersCommand('invite', [existing], runtime, () => undefined)).rejects.toThrow(/already exists/);
    await expect(runUsersCommand('invite', [], runtime, () => undefined)).rejects.toThrow(/needs one email/);
  });
});

describe('auth.sign_up default', () => {
  it('is open for a local install and invite under NODE_ENV=production', () => {
    expect(parseAuthSettings(undefined, false).signUp).toBe('open');
    expect(parseAuthSettings(undefined, true).signUp).toBe('invite');
    expect(parseAuthSettings({ sign_up: 'open' }, true).signUp).toBe('open');
    expect(() => parseAuthSettings({ sign_up: 'anyone' }, false)).toThrow(/auth\.sign_up/);
  });
});

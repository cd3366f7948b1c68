import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { createApiKey } from '../../src/keys/create-api-key.js';
import { applyLedgerEntry } from '../../src/credits/credit-ledger.js';
import { randomIdGenerator } from '../../src/shared/ids.js';
import type { Mailer, OutgoingMail } from '../../src/users/mailer.js';
import { STORE_KINDS } from '../helpers/test-store.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { AccountClient, requestJson } from '../helpers/account-client.js';

const PASSWORD = 'plum-orbit-42-lantern';

/** A mailer that keeps what it is given: the test reads the link the way a user reads the mail. */
function capturingMailer(): Mailer & { sent: OutgoingMail[]; next(to: string): Promise<OutgoingMail> } {
  const sent: OutgoingMail[] = [];
  return {
    sent,
    async send(mail) {
      sent.push(mail);
    },
    async next(to) {
      for (let attempt = 0; attempt < 100; attempt++) {
        const mail = sent.find((candidate) => candidate.to === to);
        if (mail) {
          sent.splice(sent.indexOf(mail), 1);
          return mail;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`no mail to ${to}`);
    },
  };
}

/** Self-service: profile, password, sessions, password reset by mail, deletion; on both stores. */
describe.each(STORE_KINDS)('self-service account (%s)', (storeKind) => {
  let upstream: MockUpstream;
  let gateway: TestGateway;
  const mailer = capturingMailer();

  const signUp = () =>
    AccountClient.signUp(gateway.url, `self-${randomIdGenerator.next('').toLowerCase()}@example.com`, PASSWORD);
  const signIn = async (email: string, password: string) => {
    const response = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', { email, password });
    return response.status === 200 ? new AccountClient(gateway.url, response.body.token as string, email) : null;
  };
  const chat = (key: string) =>
    requestJson(
      gateway.url,
      'POST',
      '/v1/chat/completions',
      { model: 'test/chat', messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${key}` },
    );

  beforeAll(async () => {
    upstream = await startMockUpstream();
    gateway = await startTestGateway({
      configText: testConfigText(upstream.url),
      storeKind,
      mailer,
      // Slow polling: only the announcement made by the deletion can stop a cached key in time.
      deps: { keyCacheOptions: { pollIntervalMs: 60_000 } },
    });
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('shows and changes the profile', async () => {
    const user = await signUp();
    const me = await user.request('GET', '/api-account/user/me');
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      id: expect.any(String),
      email: user.email,
      name: 'Test User',
      role: 'user',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    const renamed = await user.request('PATCH', '/api-account/user/me', { name: '  Zofia Łódź ' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: me.body.id, name: 'Zofia Łódź', email: user.email });
    expect((await user.request('GET', '/api-account/user/me')).body.name).toBe('Zofia Łódź');
    const blank = await user.request('PATCH', '/api-account/user/me', { name: '   ' });
    expect(blank.status).toBe(400);
    expect(blank.body.error.param).toBe('name');
    // The email is not a profile field: refused, and it stays what it was.
    const email = await user.request('PATCH', '/api-account/user/me', { name: 'x', email: 'other@example.com' });
    expect(email.status).toBe(400);
    expect(email.body.error).toMatchObject({ code: 'unknown_parameter', param: 'email' });
    expect((await user.request('GET', '/api-account/user/me')).body.email).toBe(user.email);
    expect((await requestJson(gateway.url, 'PATCH', '/api-account/user/me', { name: 'x' })).status).toBe(401);
  });

  it('changes the email address only through a confirmation link sent to the new one', async () => {
    const user = await signUp();
    const taken = await signUp();
    const newEmail = `moved-${randomIdGenerator.next('').toLowerCase()}@example.com`;
    const wrong = await user.request('POST', '/api-account/user/email', {
      new_email: newEmail,
      password: 'nope-nope-1',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'invalid_password', param: 'password' });
    const same = await user.request('POST', '/api-account/user/email', { new_email: user.email, password: PASSWORD });
    expect(same.status).toBe(400);
    expect(same.body.error.param).toBe('new_email');

    // Another account's address gets the same answer, and no mail goes anywhere.
    const toTaken = await user.request('POST', '/api-account/user/email', {
      new_email: taken.email,
      password: PASSWORD,
    });
    const asked = await user.request('POST', '/api-account/user/email', { new_email: newEmail, password: PASSWORD });
    expect(asked.status).toBe(200);
    expect(toTaken.body).toEqual(asked.body);
    const mail = await mailer.next(newEmail);
    expect(mailer.sent.some((sent) => sent.to === taken.email)).toBe(false);
    expect(mail.subject).toMatch(/confirm/i);
    // Nothing changes until the link is followed.
    expect((await user.request('GET', '/api-account/user/me')).body.email).toBe(user.email);
    const link = new URL(/(http\S+\/api-account\/auth\/verify-email\?\S+)/.exec(mail.text)![1]);
    const followed = await fetch(`${gateway.url}${link.pathname}${link.search}`, { redirect: 'manual' });
    expect(followed.status).toBe(302);
    expect(followed.headers.get('location')).toBe(`${gateway.config.server.publicUrl}/`);
    expect((await user.request('GET', '/api-account/user/me')).body.email).toBe(newEmail);
    expect(await signIn(newEmail, PASSWORD)).not.toBeNull();
    expect(await signIn(user.email, PASSWORD)).toBeNull();
    // The link works once.
    const again = await fetch(`${gateway.url}${link.pathname}${link.search}`, { redirect: 'manual' });
    expect(again.headers.get('location')).toMatch(/error=/);
  });

  it('changes the password only with the current one, under the password policy', async () => {
    const user = await signUp();
    const wrong = await user.request('POST', '/api-account/user/password', {
      current_password: 'not-the-password-1',
      new_password: 'violet-harbor-77-ember',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'invalid_password', param: 'current_password' });
    for (const weak of ['short-1', 'password123']) {
      const refused = await user.request('POST', '/api-account/user/password', {
        current_password: PASSWORD,
        new_password: weak,
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'weak_password', param: 'new_password' });
    }
    const other = (await signIn(user.email, PASSWORD))!;
    const changed = await user.request('POST', '/api-account/user/password', {
      current_password: PASSWORD,
      new_password: 'violet-harbor-77-ember',
    });
    expect(changed.body).toEqual({ status: 'changed', token: null });
    expect(await signIn(user.email, PASSWORD)).toBeNull();
    expect(await signIn(user.email, 'violet-harbor-77-ember')).not.toBeNull();
    // Without revoke_other_sessions, sessions stay.
    expect((await other.request('GET', '/api-account/user/me')).status).toBe(200);

    const revoking = await user.request('POST', '/api-account/user/password', {
      current_password: 'violet-harbor-77-ember',
      new_password: 'quartz-meadow-19-falcon',
      revoke_other_sessions: true,
    });
    expect(revoking.status).toBe(200);
    expect(revoking.body.token).toEqual(expect.any(String));
    expect(revoking.body.token).toContain('.'); // signed, like the token sign-in answers
    expect((await other.request('GET', '/api-account/user/me')).status).toBe(401);
    expect((await user.request('GET', '/api-account/user/me')).status).toBe(401);
    const renewed = new AccountClient(gateway.url, revoking.body.token, user.email);
    expect((await renewed.request('GET', '/api-account/user/me')).status).toBe(200);
  });

  it('lists the sessions and ends one, or every other', async () => {
    const user = await signUp();
    const second = (await signIn(user.email, PASSWORD))!;
    const third = (await signIn(user.email, PASSWORD))!;
    const listed = await user.request('GET', '/api-account/user/sessions');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(3);
    expect(listed.body.data.filter((session: { current: boolean }) => session.current)).toHaveLength(1);
    expect(JSON.stringify(listed.body)).not.toContain(second.token);
    const secondId = (await second.request('GET', '/api-account/user/sessions')).body.data.find(
      (session: { current: boolean }) => session.current,
    ).id;
    const ended = await user.request('DELETE', `/api-account/user/sessions/${secondId}`);
    expect(ended.body).toEqual({ revoked: 1 });
    expect((await second.request('GET', '/api-account/user/me')).status).toBe(401);
    expect((await third.request('GET', '/api-account/user/me')).status).toBe(200);
    const unknown = await user.request('DELETE', '/api-account/user/sessions/no-such-session');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('user_session_not_found');
    // Another account's session id is just as unknown.
    const stranger = await signUp();
    expect((await stranger.request('DELETE', `/api-account/user/sessions/${secondId}`)).status).toBe(404);

    const others = await user.request('DELETE', '/api-account/user/sessions');
    expect(others.body).toEqual({ revoked: 1 });
    expect((await third.request('GET', '/api-account/user/me')).status).toBe(401);
    expect((await user.request('GET', '/api-account/user/sessions')).body.data).toHaveLength(1);
  });

  it('resets a forgotten password through the emailed link, once', async () => {
    const user = await signUp();
    const otherSession = (await signIn(user.email, PASSWORD))!;
    const asked = await requestJson(gateway.url, 'POST', '/api-account/password-reset', { email: user.email });
    expect(asked.status).toBe(200);
    const unknown = await requestJson(gateway.url, 'POST', '/api-account/password-reset', {
      email: 'nobody-here@example.com',
    });
    // The same answer for an address without an account, and no mail.
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual(asked.body);
    const mail = await mailer.next(user.email);
    expect(mailer.sent.some((sent) => sent.to === 'nobody-here@example.com')).toBe(false);
    expect(mail.subject).toMatch(/reset/i);
    const link = /(http\S+\/reset-password\?token=\S+)/.exec(mail.text)![1];
    const url = new URL(link);
    expect(url.origin).toBe(gateway.config.server.publicUrl);
    const token = url.searchParams.get('token')!;

    const page = await fetch(`${gateway.url}${url.pathname}${url.search}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await page.text()).toContain('/api-account/password-reset/confirm');

    const weak = await requestJson(gateway.url, 'POST', '/api-account/password-reset/confirm', {
      token,
      new_password: 'qwerty12345',
    });
    expect(weak.status).toBe(400);
    expect(weak.body.error.code).toBe('weak_password');
    const done = await requestJson(gateway.url, 'POST', '/api-account/password-reset/confirm', {
      token,
      new_password: 'saffron-glacier-31-otter',
    });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ status: 'reset' });
    // Every session ended; the new password signs in, the old one does not.
    expect((await user.request('GET', '/api-account/user/me')).status).toBe(401);
    expect((await otherSession.request('GET', '/api-account/user/me')).status).toBe(401);
    expect(await signIn(user.email, PASSWORD)).toBeNull();
    expect(await signIn(user.email, 'saffron-glacier-31-otter')).not.toBeNull();
    const again = await requestJson(gateway.url, 'POST', '/api-account/password-reset/confirm', {
      token,
      new_password: 'another-secret-phrase-9',
    });
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({ code: 'invalid_token', param: 'token' });
    const badEmail = await requestJson(gateway.url, 'POST', '/api-account/password-reset', { email: 'not-an-email' });
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.error.param).toBe('email');
  });

  it('serves only the documented better-auth routes; the rest is 404 (our routes replace them)', async () => {
    const user = await signUp();
    for (const path of [
      'change-password',
      'reset-password',
      'update-user',
      'change-email',
      'delete-user',
      'list-sessions',
      'send-verification-email',
    ]) {
      const response = await user.request('POST', `/api-account/auth/${path}`, {});
      expect(response.status, path).toBe(404);
      expect(response.body.error.code).toBe('unknown_url');
    }
    const session = await user.request('GET', '/api-account/auth/get-session');
    expect(session.status).toBe(200);
    expect(session.body.user.email).toBe(user.email);
  });

  it('deletes the account: keys stop at once, personal data is gone, the ledger stays anonymised', async () => {
    const user = await signUp();
    const userId = (await user.request('GET', '/api-account/user/me')).body.id as string;
    await user.request('PATCH', '/api-account/user/me', { name: 'Erasable Name' });
    const grantReference = `grant:test:${randomIdGenerator.next('')}`;
    const { fullKey, row } = await createApiKey(gateway.testStore.store, randomIdGenerator, Date.now(), {
      userId,
      name: 'my private key name',
    });
    await applyLedgerEntry(gateway.testStore.store, {
      userId,
      kind: 'grant',
      amount: 3_000_000_000,
      reference: grantReference,
      description: 'test grant',
    });
    expect((await chat(fullKey)).status).toBe(200); // cached by this instance now
    let events = 0;
    for (let attempt = 0; attempt < 50 && events === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      events = (
        await gateway.testStore.store.db.selectFrom('usage_events').select('id').where('user_id', '=', userId).execute()
      ).length;
    }
    expect(events).toBe(1);
    await requestJson(gateway.url, 'POST', '/api-account/password-reset', { email: user.email });
    await mailer.next(user.email); // a reset token is pending too

    const wrong = await user.request('DELETE', '/api-account/user/me', { password: 'not-the-password-1' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe('invalid_password');
    expect((await chat(fullKey)).status).toBe(200);

    const deleted = await user.request('DELETE', '/api-account/user/me', { password: PASSWORD });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ deleted: true, revoked_keys: 1 });
    expect((await chat(fullKey)).status).toBe(401);
    expect((await user.request('GET', '/api-account/user/me')).status).toBe(401);
    expect(await signIn(user.email, PASSWORD)).toBeNull();

    // No table holds the email, the name, the key's name or the user id any more.
    const db = gateway.testStore.store.db;
    // PostgreSQL lists every schema's tables: only this test's own schema is ours to read.
    const schema = gateway.testStore.searchPath;
    const tables = (await db.introspection.getTables()).filter((table) => !schema || table.schema === schema);
    expect(tables.length).toBeGreaterThan(10);
    for (const table of tables) {
      const rows = await (db as any).selectFrom(table.name).selectAll().execute();
      const text = JSON.stringify(rows);
      for (const secret of [user.email, 'Erasable Name', 'my private key name', userId])
        expect(text.includes(secret), `${table.name} still holds ${secret}`).toBe(false);
    }
    // The money records stay, under one anonymous id, and still add up.
    const ledger = await db
      .selectFrom('credit_ledger')
      .select(['user_id', 'amount_nanos'])
      .where('reference', '=', grantReference)
      .executeTakeFirstOrThrow();
    expect(ledger.user_id).toMatch(/^deleted_/);
    expect(Number(ledger.amount_nanos)).toBe(3_000_000_000);
    const usage = await db
      .selectFrom('usage_events')
      .select('user_id')
      .where('key_id', '=', row.id)
      .executeTakeFirstOrThrow();
    expect(usage.user_id).toBe(ledger.user_id);
    const balance = await db
      .selectFrom('credit_balances')
      .select('balance_nanos')
      .where('user_id', '=', ledger.user_id)
      .executeTakeFirstOrThrow();
    expect(Number(balance.balance_nanos)).toBeLessThanOrEqual(3_000_000_000);
  });
});

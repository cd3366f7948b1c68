import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomIdGenerator } from '../../src/shared/ids.js';
import type { Mailer, OutgoingMail } from '../../src/users/mailer.js';
import { STORE_KINDS, TEST_POSTGRES_URL } from '../helpers/test-store.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { AccountClient, requestJson } from '../helpers/account-client.js';

/**
 * Issue 25, item 5: older reset links still worked after a newer one was used and after the owner
 * changed the password (the password chosen through the old link signed in); nothing limited the
 * requests (60 mails to one address in 0.4 s); an existing account's answer took longer than an
 * unknown address's (it wrote a token before answering).
 */
const PASSWORD = 'plum-orbit-42-lantern';
const CONFIG = `
auth:
  password_reset_limits:
    email_requests: 3
    address_requests: 25
`;

function capturingMailer(): Mailer & { sent: OutgoingMail[]; next(to: string): Promise<OutgoingMail> } {
  const sent: OutgoingMail[] = [];
  return {
    sent,
    async send(mail) {
      sent.push(mail);
    },
    async next(to) {
      for (let attempt = 0; attempt < 500; attempt++) {
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

const tokenOf = (mail: OutgoingMail) =>
  new URL(/(http\S+\/reset-password\?token=\S+)/.exec(mail.text)![1]).searchParams.get('token')!;

describe.each(STORE_KINDS)('password-reset links and limits (%s)', (storeKind) => {
  let gateway: TestGateway;
  const mailer = capturingMailer();

  beforeAll(async () => {
    gateway = await startTestGateway({ configText: testConfigText('http://127.0.0.1:9', CONFIG), storeKind, mailer });
  }, 60_000);
  afterAll(async () => gateway?.close());

  const signUp = () =>
    AccountClient.signUp(gateway.url, `reset-${randomIdGenerator.next('').toLowerCase()}@example.com`, PASSWORD);
  const ask = (email: string) => requestJson(gateway.url, 'POST', '/api-account/password-reset', { email });
  const confirm = (token: string, password: string) =>
    requestJson(gateway.url, 'POST', '/api-account/password-reset/confirm', { token, new_password: password });
  const signsIn = async (email: string, password: string) =>
    (await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', { email, password })).status === 200;
  const expectDeadLink = (response: { status: number; body: any }) => {
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_token', param: 'token' });
  };

  it('a newer reset link revokes the older ones, and a used one revokes them all', async () => {
    const user = await signUp();
    expect((await ask(user.email)).status).toBe(200);
    const first = tokenOf(await mailer.next(user.email));
    expect((await ask(user.email)).status).toBe(200);
    const second = tokenOf(await mailer.next(user.email));
    expect(second).not.toBe(first);

    expectDeadLink(await confirm(first, 'older-link-password-1'));
    expect((await confirm(second, 'newer-link-password-2')).status).toBe(200);
    expectDeadLink(await confirm(first, 'older-link-password-3'));
    expect(await signsIn(user.email, 'older-link-password-1')).toBe(false);
    expect(await signsIn(user.email, 'older-link-password-3')).toBe(false);
    expect(await signsIn(user.email, 'newer-link-password-2')).toBe(true);
  });

  it('a password change revokes every reset link mailed before it', async () => {
    const user = await signUp();
    expect((await ask(user.email)).status).toBe(200);
    const link = tokenOf(await mailer.next(user.email));
    const changed = await user.request('POST', '/api-account/user/password', {
      current_password: PASSWORD,
      new_password: 'owner-chose-this-one-7',
    });
    expect(changed.status).toBe(200);
    expectDeadLink(await confirm(link, 'attacker-chose-this-8'));
    expect(await signsIn(user.email, 'attacker-chose-this-8')).toBe(false);
    expect(await signsIn(user.email, 'owner-chose-this-one-7')).toBe(true);
  });

  it('stores no usable reset token in the database', async () => {
    const user = await signUp();
    expect((await ask(user.email)).status).toBe(200);
    const token = tokenOf(await mailer.next(user.email));
    const rows = await (gateway.testStore.store.db as any)
      .selectFrom('verification')
      .select(['identifier', 'value'])
      .execute();
    const own = rows.filter((row: { identifier: string }) => row.identifier.startsWith('reset-password:'));
    expect(own.length).toBeGreaterThan(0);
    for (const row of own) expect(row.identifier).not.toContain(token);
    expect((await confirm(token, 'hashed-links-still-work-4')).status).toBe(200);
  });

  it('limits requests per email and per client address: 429 in the envelope with Retry-After', async () => {
    const user = await signUp();
    const answers = [];
    for (let index = 0; index < 10; index++) answers.push(await ask(user.email));
    expect(answers.slice(0, 3).map((answer) => answer.status)).toEqual([200, 200, 200]);
    for (const refused of answers.slice(3)) {
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({ type: 'rate_limit_error', code: 'too_many_password_resets' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Three mails, not ten.
    for (let index = 0; index < 3; index++) await mailer.next(user.email);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(mailer.sent.filter((mail) => mail.to === user.email)).toHaveLength(0);
    // An unknown address is counted alike (the answers must not differ).
    const nobody = `nobody-${randomIdGenerator.next('').toLowerCase()}@example.com`;
    const unknown = [];
    for (let index = 0; index < 4; index++) unknown.push((await ask(nobody)).status);
    expect(unknown).toEqual([200, 200, 200, 429]);

    // Per client address: different emails, one address, until its limit (25 in this config).
    let refusedAt = -1;
    for (let index = 0; index < 40 && refusedAt < 0; index++) {
      const answer = await ask(`many-${index}-${randomIdGenerator.next('').toLowerCase()}@example.com`);
      if (answer.status === 429) {
        expect(answer.body.error.code).toBe('too_many_password_resets');
        refusedAt = index;
      } else expect(answer.status).toBe(200);
    }
    expect(refusedAt).toBeGreaterThan(0);
    expect(refusedAt).toBeLessThan(25);
  });
});

describe('password-reset answers do the same work for existing and unknown addresses', () => {
  let gateway: TestGateway;
  const mailer = capturingMailer();

  beforeAll(async () => {
    gateway = await startTestGateway({
      configText: testConfigText('http://127.0.0.1:9'),
      storeKind: 'postgres',
      mailer,
    });
  }, 60_000);
  afterAll(async () => gateway?.close());

  it('answers an existing account without waiting for its token to be written', async () => {
    // Another connection locks the token table against writes: a request that writes before
    // answering waits for the lock, one that answers first does not. PostgreSQL waits on the
    // network, so this process stays free to see the answer; no clock is read, so load cannot flake it.
    const blocker = new pg.Client({
      connectionString: TEST_POSTGRES_URL,
      options: `-c search_path=${gateway.testStore.searchPath}`,
    });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE verification IN EXCLUSIVE MODE');
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      await blocker.query('ROLLBACK');
      await blocker.end();
    };
    const safety = setTimeout(() => void release(), 20_000);
    try {
      const [existing, unknown] = await Promise.all([
        requestJson(gateway.url, 'POST', '/api-account/password-reset', { email: gateway.email }),
        requestJson(gateway.url, 'POST', '/api-account/password-reset', { email: 'nobody-at-all@example.com' }),
      ]);
      const answeredWhileLocked = !released;
      await release();
      expect(existing.status, existing.text).toBe(200);
      expect(existing.body).toEqual(unknown.body);
      expect(answeredWhileLocked).toBe(true);
    } finally {
      clearTimeout(safety);
      await release();
    }
    // The work still happens, once the lock is gone.
    const mail = await mailer.next(gateway.email);
    expect(tokenOf(mail)).toBeTruthy();
  }, 60_000);
});

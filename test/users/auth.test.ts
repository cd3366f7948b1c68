import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { randomId } from '../../src/shared/ids.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { requestJson } from '../helpers/account-client.js';
import { betterAuthStorages } from '../../src/users/auth-async-context.js';

/** Sign-up, sign-in and sign-out at the paths of CONTRACT §2, as curl and SDK clients use them. */
let upstream: MockUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startMockUpstream();
  gateway = await startTestGateway({ configText: testConfigText(upstream.url) });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const freshEmail = () => `auth-${randomId(10).toLowerCase()}@example.com`;

describe('accounts under /api-account/auth', () => {
  it('signs up (name optional), signs in, authenticates with the bearer token, and signs out', async () => {
    const email = freshEmail();
    const signUp = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-up/email', {
      email,
      password: 'correct-horse-1',
    });
    expect(signUp.status).toBe(200);
    // Sign-up starts no session (it answers alike for taken emails); signing in does.
    expect(signUp.body.token).toBeNull();
    expect(signUp.body.user.email).toBe(email);
    const firstSession = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
      email,
      password: 'correct-horse-1',
    });
    expect(firstSession.status).toBe(200);

    const signIn = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
      email,
      password: 'correct-horse-1',
    });
    expect(signIn.status).toBe(200);
    const token = signIn.body.token as string;
    expect(signIn.headers.get('set-cookie')).toMatch(/HttpOnly/i);

    const me = await requestJson(gateway.url, 'GET', '/api-account/user/me', undefined, {
      authorization: `Bearer ${token}`,
    });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(email);

    const signOut = await requestJson(
      gateway.url,
      'POST',
      '/api-account/auth/sign-out',
      {},
      { authorization: `Bearer ${token}` },
    );
    expect(signOut.status).toBe(200);
    const after = await requestJson(gateway.url, 'GET', '/api-account/user/api-keys', undefined, {
      authorization: `Bearer ${token}`,
    });
    expect(after.status).toBe(401);
    expect(after.body.error.type).toBe('authentication_error');
    // The first session is a separate one and still works.
    expect(
      (
        await requestJson(gateway.url, 'GET', '/api-account/user/me', undefined, {
          authorization: `Bearer ${firstSession.body.token}`,
        })
      ).status,
    ).toBe(200);
  });

  it('answers a wrong password and an unknown email with the same 401', async () => {
    const email = freshEmail();
    await requestJson(gateway.url, 'POST', '/api-account/auth/sign-up/email', {
      email,
      password: 'correct-horse-1',
      name: 'Ann',
    });
    const wrongPassword = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
      email,
      password: 'wrong-horse-1',
    });
    const unknownEmail = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
      email: freshEmail(),
      password: 'correct-horse-1',
    });
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    expect(unknownEmail.body).toEqual(wrongPassword.body);
    expect(wrongPassword.body.error.type).toBe('authentication_error');
  });

  it('never stores the password in clear', async () => {
    const email = freshEmail();
    const password = `pw-${randomId(16)}`;
    expect(
      (await requestJson(gateway.url, 'POST', '/api-account/auth/sign-up/email', { email, password })).status,
    ).toBe(200);
    const rows = await sql<Record<string, unknown>>`select * from account`.execute(gateway.testStore.store.db);
    expect(rows.rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows.rows)).not.toContain(password);
  });

  it('accepts the session cookie from a browser of our origin and refuses a cross-site one', async () => {
    const email = freshEmail();
    await requestJson(gateway.url, 'POST', '/api-account/auth/sign-up/email', { email, password: 'correct-horse-1' });
    const signIn = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
      email,
      password: 'correct-horse-1',
    });
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
    expect(cookie).toContain('=');
    const me = await requestJson(gateway.url, 'GET', '/api-account/user/me', undefined, { cookie });
    expect(me.status).toBe(200);
    const forged = await requestJson(
      gateway.url,
      'POST',
      '/api-account/auth/sign-out',
      {},
      { cookie, origin: 'https://evil.example' },
    );
    expect(forged.status).toBe(403);
    expect((await requestJson(gateway.url, 'GET', '/api-account/user/me', undefined, { cookie })).status).toBe(200);
  });

  it('turns better-auth context tracking off once no account call is in flight, without breaking concurrent calls', async () => {
    const email = freshEmail();
    const password = 'correct-horse-1';
    await requestJson(gateway.url, 'POST', '/api-account/auth/sign-up/email', { email, password });
    const token = (await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', { email, password })).body
      .token as string;
    const auth = { authorization: `Bearer ${token}` };
    // Overlapping calls: session lookups, sign-ins (transactions inside better-auth) and a password
    // check through its internal adapter, some ending while others are mid-way.
    const results = await Promise.all([
      ...Array.from({ length: 20 }, () => requestJson(gateway.url, 'GET', '/api-account/user/me', undefined, auth)),
      ...Array.from({ length: 5 }, () =>
        requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', { email, password }),
      ),
      requestJson(
        gateway.url,
        'POST',
        '/api-account/user/email',
        { new_email: email, password: 'wrong-password-1' },
        auth,
      ),
    ]);
    expect(results.slice(0, 25).map((result) => result.status)).toEqual(Array(25).fill(200));
    expect(results[25].status).toBe(400);
    expect(results[25].body.error.code).toBe('invalid_password');
    // better-auth made its storages; none is left enabled (Node keeps async hooks on while one is).
    const storages = betterAuthStorages();
    expect(storages.length).toBeGreaterThan(0);
    expect(storages.filter((storage) => (storage as unknown as { enabled: boolean }).enabled)).toEqual([]);
    // And the next call turns what it needs back on.
    expect((await requestJson(gateway.url, 'GET', '/api-account/user/me', undefined, auth)).status).toBe(200);
  });
});

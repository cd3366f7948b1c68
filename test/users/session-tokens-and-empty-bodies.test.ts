import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, createHmac } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { AccountClient } from '../helpers/account-client.js';
import { runUsersCommand } from '../../src/cli/users-command.js';
import type { Runtime } from '../../src/gateway-runtime.js';
import { openStore } from '../../src/store/database.js';
import { up as hashSessionTokens } from '../../src/store/migrations/0605-hash-session-tokens.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { STORE_KINDS } from '../helpers/test-store.js';

/**
 * Issue 16, finding 9 (the account parts): session tokens sat in plaintext in the session table,
 * usable by whoever read the database (the signing secret is, by default, in the same database);
 * now only a SHA-256 of each is stored. A DELETE or a sign-out sent with
 * `Content-Type: application/json` and no body was refused 400.
 */
describe.each(STORE_KINDS)('session tokens and empty JSON bodies (%s)', (storeKind) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ configText: testConfigText('http://127.0.0.1:9'), storeKind });
  });
  afterAll(async () => gateway?.close());

  const signIn = async (): Promise<string> => {
    const response = await fetch(`${gateway.url}/api-account/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: gateway.email, password: 'plum-orbit-42-lantern' }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { token: string }).token;
  };
  const call = (method: string, path: string, token: string, headers: Record<string, string> = {}) =>
    fetch(`${gateway.url}/api-account${path}`, { method, headers: { authorization: `Bearer ${token}`, ...headers } });

  /** The session rows as stored, by the hash our test computes on its own. */
  const storedTokens = async (): Promise<string[]> =>
    (await sql<{ token: string }>`select token from "session"`.execute(gateway.testStore.store.db)).rows.map(
      (row) => row.token,
    );
  const sha256 = (value: string) => 'sha256:' + createHash('sha256').update(value).digest('base64url');
  // Signed as better-auth signs its cookie and bearer tokens, with the installation's secret.
  const sign = (value: string) =>
    `${value}.${createHmac('sha256', gateway.auth.options.secret!).update(value).digest('base64')}`;
  const unsigned = (token: string) => token.slice(0, token.indexOf('.'));

  it('keeps only a hash of each session token: neither the stored value nor its signed form opens a session', async () => {
    const token = await signIn();
    const raw = unsigned(token);
    expect(sign(raw)).toBe(token); // the test signs exactly as better-auth does
    const stored = await storedTokens();
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(raw);
    expect(stored.every((value) => value.startsWith('sha256:'))).toBe(true);
    expect(stored).toContain(sha256(raw));

    expect((await call('GET', '/user/me', token)).status).toBe(200);
    for (const presented of [sha256(raw), sign(sha256(raw))]) {
      const asBearer = await call('GET', '/user/me', presented);
      expect(asBearer.status).toBe(401);
      expect(((await asBearer.json()) as { error: { code: string } }).error.code).toBe('not_signed_in');
      const asCookie = await fetch(`${gateway.url}/api-account/user/me`, {
        headers: { cookie: `better-auth.session_token=${encodeURIComponent(presented)}` },
      });
      expect(asCookie.status).toBe(401);
    }
    const session = await fetch(`${gateway.url}/api-account/auth/get-session`, {
      headers: { authorization: `Bearer ${sign(sha256(raw))}` },
    });
    expect(await session.json()).toBeNull();
  });

  it('cookie and bearer sessions work; listing sessions shows no usable token; sign-out deletes the row', async () => {
    const response = await fetch(`${gateway.url}/api-account/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: gateway.email, password: 'plum-orbit-42-lantern' }),
    });
    expect(response.status).toBe(200);
    const cookie = response.headers.getSetCookie().find((value) => value.startsWith('better-auth.session_token='));
    expect(cookie).toBeDefined();
    const cookieHeader = cookie!.split(';')[0]!;
    const token = ((await response.json()) as { token: string }).token;
    expect(decodeURIComponent(cookieHeader.slice(cookieHeader.indexOf('=') + 1))).toBe(token);

    const me = await fetch(`${gateway.url}/api-account/user/me`, { headers: { cookie: cookieHeader } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { email: string }).email).toBe(gateway.email);
    expect((await call('GET', '/user/me', token)).status).toBe(200);
    const current = (await (await call('GET', '/auth/get-session', token)).json()) as { session: { token: string } };
    expect(current.session.token).toBe(unsigned(token)); // the caller's own token, never the hash

    // Sessions are listed by our route, by id only; better-auth's own listing is not served.
    const listed = (await (await call('GET', '/user/sessions', token)).json()) as { data: object[] };
    expect(listed.data.length).toBeGreaterThan(0);
    for (const session of listed.data) expect(session).not.toHaveProperty('token');
    expect((await call('GET', '/auth/list-sessions', token)).status).toBe(404);

    expect(await storedTokens()).toContain(sha256(unsigned(token)));
    const signOut = await fetch(`${gateway.url}/api-account/auth/sign-out`, {
      method: 'POST',
      headers: { cookie: cookieHeader, origin: gateway.config.server.publicUrl },
    });
    expect(signOut.status).toBe(200);
    expect(await storedTokens()).not.toContain(sha256(unsigned(token)));
    expect((await fetch(`${gateway.url}/api-account/user/me`, { headers: { cookie: cookieHeader } })).status).toBe(401);
    expect((await call('GET', '/user/me', token)).status).toBe(401);
  });

  it('refreshes a session that is due (updateAge) by its hash and keeps it open', async () => {
    const token = await signIn();
    const hash = sha256(unsigned(token));
    const db = gateway.testStore.store.db as unknown as Kysely<any>;
    const read = async () =>
      (await db.selectFrom('session').select('expiresAt').where('token', '=', hash).executeTakeFirstOrThrow())
        .expiresAt as unknown;
    const original = await read();
    // An hour left of a seven-day session: past better-auth's one-day updateAge, so it is extended.
    const soon = new Date(Date.now() + 3_600_000);
    const stored =
      typeof original === 'string' ? soon.toISOString() : typeof original === 'number' ? soon.getTime() : soon;
    await db.updateTable('session').set({ expiresAt: stored }).where('token', '=', hash).execute();
    expect((await call('GET', '/user/me', token)).status).toBe(200);
    const refreshed = new Date((await read()) as string | number | Date).getTime();
    expect(refreshed).toBeGreaterThan(Date.now() + 6 * 24 * 3_600_000);
    expect((await call('GET', '/user/me', token)).status).toBe(200);
  });

  it('`gateway users disable` ends the hashed sessions of that user', async () => {
    const client = await AccountClient.signUp(gateway.url);
    expect((await client.request('GET', '/api-account/user/me')).status).toBe(200);
    expect(await storedTokens()).toContain(sha256(unsigned(client.token)));
    const runtime = (): Promise<Runtime> =>
      Promise.resolve({
        config: gateway.config,
        environment: { production: false },
        store: openStore(gateway.testStore.url, { searchPath: gateway.testStore.searchPath }),
        auth: gateway.auth,
        secret: 'unused',
        applied: [],
      });
    await runUsersCommand('disable', ['--email', client.email], runtime, () => undefined);
    expect(await storedTokens()).not.toContain(sha256(unsigned(client.token)));
    expect((await client.request('GET', '/api-account/user/me')).status).toBe(401);
  });

  it('an upgrade hashes the plaintext tokens of an older installation in place (migration 0605): nobody is signed out', async () => {
    const token = await signIn();
    const raw = unsigned(token);
    const db = gateway.testStore.store.db as unknown as Kysely<any>;
    // As an installation before this change kept it.
    await db.updateTable('session').set({ token: raw }).where('token', '=', sha256(raw)).execute();
    expect((await call('GET', '/user/me', token)).status).toBe(401);
    await hashSessionTokens(db, gateway.testStore.store.dialect);
    expect(await storedTokens()).toContain(sha256(raw));
    expect(await storedTokens()).not.toContain(raw);
    expect((await call('GET', '/user/me', token)).status).toBe(200);
    await hashSessionTokens(db, gateway.testStore.store.dialect); // hashes are never hashed twice
    expect((await call('GET', '/user/me', token)).status).toBe(200);
  });

  it('accepts a DELETE and a sign-out sent as JSON with no body', async () => {
    const token = await signIn();
    const created = await call('POST', '/user/api-keys', token, { 'content-type': 'application/json' });
    expect(created.status).toBe(400); // a POST with a JSON type and no body is still a bad request
    const newKey = async () => {
      const response = await fetch(`${gateway.url}/api-account/user/api-keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'to delete' }),
      });
      return ((await response.json()) as { key_id: string }).key_id;
    };
    // As fetch sends it (no Content-Length) and as curl -X DELETE -H … sends it (Content-Length: 0).
    for (const headers of [
      { 'content-type': 'application/json' } as Record<string, string>,
      { 'content-type': 'application/json; charset=utf-8', 'content-length': '0' },
    ]) {
      const keyId = await newKey();
      const deleted = await call('DELETE', `/user/api-keys/${keyId}`, token, headers);
      expect(deleted.status).toBe(200);
      expect(await deleted.json()).toEqual({ key_id: keyId, deleted: true });
    }

    const signOut = await call('POST', '/auth/sign-out', token, { 'content-type': 'application/json' });
    expect(signOut.status).toBe(200);
    expect((await call('GET', '/user/me', token)).status).toBe(401);
  });
});

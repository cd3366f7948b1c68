import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { STORE_KINDS } from '../helpers/test-store.js';

/**
 * Issue 16, finding 9 (the account parts): session tokens sat in plaintext in the session table,
 * usable as bearer tokens by whoever read the database; a DELETE or a sign-out sent with
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

  it('a copy of the session table opens no session: only the signed token from sign-in does', async () => {
    const token = await signIn();
    const rows = await sql<{ token: string }>`select token from session`.execute(gateway.testStore.store.db);
    const stored = rows.rows.map((row) => row.token);
    expect(stored).not.toContain(token);
    const own = stored.find((value) => token.startsWith(`${value}.`));
    expect(own).toBeDefined();
    expect((await call('GET', '/user/me', token)).status).toBe(200);
    const withStoredValue = await call('GET', '/user/me', own!);
    expect(withStoredValue.status).toBe(401);
    expect(((await withStoredValue.json()) as { error: { code: string } }).error.code).toBe('not_signed_in');
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

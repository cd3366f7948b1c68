import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createAuth, migrateAuthTables, type Auth } from '../../src/users/create-auth.js';
import { createUser } from '../../src/users/create-user.js';
import { hashSessionToken } from '../../src/users/hashed-session-adapter.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/test-store.js';

/**
 * The adapter better-auth is given (issue 16, finding 9): every way better-auth reaches a session
 * by its token goes through the hash, and only a caller that named a token gets it back.
 */
describe.each(STORE_KINDS)('the session-hashing adapter (%s)', (storeKind) => {
  let testStore: TestStore;
  let auth: Auth;
  let userId: string;
  beforeAll(async () => {
    testStore = await createTestStore(storeKind);
    auth = createAuth(testStore.store, 'test-secret-test-secret-test-secret', { baseUrl: 'http://127.0.0.1:8080' });
    await migrateAuthTables(auth, testStore.store);
    userId = (await createUser(auth, testStore.store, { email: 'hash@example.com', password: 'plum-orbit-42-lantern' }))
      .id;
  });
  afterAll(async () => testStore?.cleanup());

  const adapter = async () => (await auth.$context).adapter;
  type SessionRow = { id: string; token: string; userId: string };
  const newSession = async (token: string) => {
    const now = new Date();
    return (await adapter()).create<Record<string, unknown>, SessionRow>({
      model: 'session',
      data: { token, userId, expiresAt: new Date(now.getTime() + 3_600_000), createdAt: now, updatedAt: now },
    });
  };
  const storedToken = async (id: string) =>
    (await sql<{ token: string }>`select token from "session" where id = ${id}`.execute(testStore.store.db)).rows[0]
      ?.token;

  it('stores the hash, answers the caller with the raw token it named, and never hands a token to anyone else', async () => {
    const db = await adapter();
    const first = await newSession('first-token-first-token-first-tok');
    const second = await newSession('second-token-second-token-second');
    expect(first.token).toBe('first-token-first-token-first-tok');
    expect(await storedToken(first.id)).toBe(hashSessionToken('first-token-first-token-first-tok'));
    expect(hashSessionToken('first-token-first-token-first-tok')).toMatch(/^sha256:[A-Za-z0-9_-]{43}$/);

    const found = await db.findOne<SessionRow>({ model: 'session', where: [{ field: 'token', value: first.token }] });
    expect(found).toMatchObject({ id: first.id, token: first.token });
    expect(
      await db.findOne({ model: 'session', where: [{ field: 'token', value: hashSessionToken(first.token) }] }),
    ).toBeNull();

    const both = await db.findMany<SessionRow>({
      model: 'session',
      where: [{ field: 'token', operator: 'in', value: [first.token, second.token] }],
    });
    expect(both.map((row) => row.token).sort()).toEqual([first.token, second.token].sort());

    const byUser = await db.findMany<SessionRow>({ model: 'session', where: [{ field: 'userId', value: userId }] });
    expect(byUser.map((row) => row.token).sort()).toEqual(
      [hashSessionToken(first.token), hashSessionToken(second.token)].sort(),
    );
    expect(await db.count({ model: 'session', where: [{ field: 'token', value: second.token }] })).toBe(1);

    const later = new Date(Date.now() + 7_200_000);
    const updated = await db.update<SessionRow>({
      model: 'session',
      where: [{ field: 'token', value: second.token }],
      update: { updatedAt: later },
    });
    expect(updated).toMatchObject({ id: second.id, token: second.token });

    await db.delete({ model: 'session', where: [{ field: 'token', value: first.token }] });
    expect(await storedToken(first.id)).toBeUndefined();
    expect(
      await db.deleteMany({ model: 'session', where: [{ field: 'token', operator: 'in', value: [second.token] }] }),
    ).toBe(1);
  });

  it('refuses a pattern match on tokens, which a hash cannot answer', async () => {
    const db = await adapter();
    await expect(
      db.findMany({ model: 'session', where: [{ field: 'token', operator: 'starts_with', value: 'abc' }] }),
    ).rejects.toThrow(/stored hashed/);
  });

  it('hashes inside better-auth transactions too', async () => {
    const db = await adapter();
    const token = 'in-a-transaction-in-a-transaction';
    const created = await db.transaction(async (trx) => {
      const now = new Date();
      return trx.create<Record<string, unknown>, SessionRow>({
        model: 'session',
        data: { token, userId, expiresAt: new Date(now.getTime() + 3_600_000), createdAt: now, updatedAt: now },
      });
    });
    expect(created.token).toBe(token);
    expect(await storedToken(created.id)).toBe(hashSessionToken(token));
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/test-store.js';
import { createAuth, migrateAuthTables } from '../../src/users/create-auth.js';
import { bootstrapAdmin } from '../../src/users/bootstrap-admin.js';
import { createUser } from '../../src/users/create-user.js';
import { ensureFirstAdmin, getRole, setRole } from '../../src/users/user-roles.js';
import { findUserByEmail } from '../../src/users/user-repository.js';

/** The first account is the administrator: on a new store, and once on a store from before roles. */
describe.each(STORE_KINDS)('first admin (%s)', (storeKind) => {
  let testStore: TestStore | undefined;
  afterEach(async () => {
    await testStore?.cleanup();
    testStore = undefined;
  });

  async function setUp() {
    testStore = await createTestStore(storeKind);
    const auth = createAuth(testStore.store, 'test-secret-test-secret-test-secret', { baseUrl: 'http://127.0.0.1' });
    await migrateAuthTables(auth, testStore.store);
    return { store: testStore.store, auth };
  }

  it('gives the bootstrapped first account the admin role', async () => {
    const { store, auth } = await setUp();
    const result = await bootstrapAdmin(auth, store, {
      GATEWAY_ADMIN_EMAIL: 'root@example.com',
      GATEWAY_ADMIN_PASSWORD: 'root-password-1',
    });
    expect(result?.email).toBe('root@example.com');
    const root = await findUserByEmail(store.db, 'root@example.com');
    expect(await getRole(store.db, root!.id)).toBe('admin');
    // Later sign-ups are plain users, and a second start changes nothing.
    const later = await createUser(auth, store, { email: 'later@example.com', password: 'later-password-1' });
    expect(await bootstrapAdmin(auth, store, {})).toBeNull();
    expect(await getRole(store.db, later.id)).toBe('user');
  });

  it('on a store from before roles, makes its oldest account admin once', async () => {
    const { store, auth } = await setUp();
    const first = await createUser(auth, store, { email: 'first@example.com', password: 'first-password-1' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await createUser(auth, store, { email: 'second@example.com', password: 'second-password-1' });
    expect(await bootstrapAdmin(auth, store, {})).toBeNull();
    expect(await getRole(store.db, first.id)).toBe('admin');
    expect(await getRole(store.db, second.id)).toBe('user');
    // Decided once: an operator who later removes every admin is not handed a new one on restart.
    await setRole(store.db, first.id, 'user', Date.now());
    expect(await ensureFirstAdmin(store.db, Date.now())).toBeNull();
    expect(await getRole(store.db, first.id)).toBe('user');
  });
});

/**
 * GATEWAY_ADMIN_EMAIL on a store that already has accounts creates nothing; start-up says so
 * (regression: the README tour's second start ignored it silently and `keys create` then failed).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestStore, type TestStore } from '../helpers/test-store.js';
import { createAuth, migrateAuthTables } from '../../src/users/create-auth.js';
import { bootstrapAdmin, skippedBootstrapNotice } from '../../src/users/bootstrap-admin.js';
import { createUser } from '../../src/users/create-user.js';

describe('the first-account notice', () => {
  let testStore: TestStore | undefined;
  afterEach(async () => {
    await testStore?.cleanup();
    testStore = undefined;
  });

  it('says nothing was created, and whether the named account exists', async () => {
    testStore = await createTestStore('sqlite');
    const { store } = testStore;
    const auth = createAuth(store, 'test-secret-test-secret-test-secret', { baseUrl: 'http://127.0.0.1' });
    await migrateAuthTables(auth, store);
    expect(await bootstrapAdmin(auth, store, { GATEWAY_ADMIN_PASSWORD: 'first-password-1' })).toMatchObject({
      email: 'admin@example.com',
    });
    const env = { GATEWAY_ADMIN_EMAIL: 'Me@Example.com', GATEWAY_ADMIN_PASSWORD: 'change-me-now' };
    expect(await bootstrapAdmin(auth, store, env)).toBeNull();
    expect(await skippedBootstrapNotice(store, env)).toBe(
      'the store already has 1 account, so GATEWAY_ADMIN_EMAIL and GATEWAY_ADMIN_PASSWORD create nothing (they apply to an empty store only); me@example.com does not exist: create it with gateway users create --email me@example.com --password … (add --exists-ok to reuse it if it does)',
    );
    await createUser(auth, store, { email: 'me@example.com', password: 'change-me-now' });
    expect(await skippedBootstrapNotice(store, env)).toBe(
      'the store already has 2 accounts, so GATEWAY_ADMIN_EMAIL and GATEWAY_ADMIN_PASSWORD create nothing (they apply to an empty store only); me@example.com exists (role user), its password unchanged',
    );
    expect(await skippedBootstrapNotice(store, {})).toBeNull();
  });
});

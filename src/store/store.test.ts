import { afterEach, describe, expect, it } from 'vitest';
import { createTestStore, STORE_KINDS, type TestStore } from '../../test/helpers/test-store.js';
import { migrateToLatest } from './migrate.js';
import { getOrCreateSetting } from './settings-repository.js';

describe.each(STORE_KINDS)('store on %s', (kind) => {
  let testStore: TestStore | undefined;
  afterEach(async () => {
    await testStore?.cleanup();
    testStore = undefined;
  });

  it('migrates twice without changes the second time', async () => {
    testStore = await createTestStore(kind);
    const second = await migrateToLatest(testStore.store);
    expect(second.applied).toEqual([]);
  });

  it('creates a setting once, even when two callers race', async () => {
    testStore = await createTestStore(kind);
    const { store } = testStore;
    const [first, second] = await Promise.all([
      getOrCreateSetting(store.db, 'auth_secret', () => 'one', 1),
      getOrCreateSetting(store.db, 'auth_secret', () => 'two', 1),
    ]);
    expect(first).toBe(second);
  });
});

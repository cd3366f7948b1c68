import { afterEach, describe, expect, it } from 'vitest';
import { createTestStore, STORE_KINDS, type TestStore } from '../../test/helpers/test-store.js';
import { createApiKey } from './create-api-key.js';
import { findApiKeyByHash, keyChangesSince, latestKeyChangeId } from './api-key-repository.js';
import { hashApiKey } from './api-key-format.js';
import { randomIdGenerator } from '../shared/ids.js';

describe.each(STORE_KINDS)('api key repository on %s', (kind) => {
  let testStore: TestStore | undefined;
  afterEach(async () => {
    await testStore?.cleanup();
    testStore = undefined;
  });

  it('stores a key by hash only, with large millisecond times intact, and records the change', async () => {
    testStore = await createTestStore(kind);
    const { store } = testStore;
    const before = await latestKeyChangeId(store.db);
    const now = 1_800_000_000_123;
    const { row, fullKey } = await createApiKey(store, randomIdGenerator, now, {
      userId: 'user-1',
      name: 'ci',
      allowedModels: ['openai/*'],
      expiresAt: now + 1000,
    });
    expect(fullKey).toMatch(/^sk-gw-[0-9A-Za-z]{40}$/);
    const found = await findApiKeyByHash(store.db, hashApiKey(fullKey));
    expect(found).toMatchObject({
      id: row.id,
      name: 'ci',
      created_at: now,
      expires_at: now + 1000,
      allowed_models: '["openai/*"]',
      disabled: 0,
    });
    expect(JSON.stringify(found)).not.toContain(fullKey);
    const changes = await keyChangesSince(store.db, before);
    expect(changes.map((change) => change.key_hash)).toContain(row.key_hash);
  });
});

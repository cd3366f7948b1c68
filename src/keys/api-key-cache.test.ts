import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createTestStore, STORE_KINDS, type TestStore } from '../../test/helpers/test-store.js';
import { createApiKey } from './create-api-key.js';
import { recordKeyChange } from './api-key-repository.js';
import { hashApiKey } from './api-key-format.js';
import { ApiKeyCache } from './api-key-cache.js';
import { randomIdGenerator } from '../shared/ids.js';
import { systemClock } from '../shared/clock.js';

describe.each(STORE_KINDS)('API key cache and the change feed on %s', (kind) => {
  let testStore: TestStore | undefined;
  let cache: ApiKeyCache | undefined;
  afterEach(async () => {
    await cache?.stop();
    await testStore?.cleanup();
    testStore = cache = undefined;
  });

  async function cachedKey() {
    testStore = await createTestStore(kind);
    const { store } = testStore;
    cache = new ApiKeyCache(store, systemClock, pino({ level: 'silent' }), { pollIntervalMs: 60_000 });
    await cache.start();
    const { row, fullKey } = await createApiKey(store, randomIdGenerator, Date.now(), { userId: 'user-1', name: 'ci' });
    const hash = hashApiKey(fullKey);
    expect(await cache.get(hash)).toMatchObject({ id: row.id });
    return { store, hash, cache };
  }

  it('keeps a key loaded after a change (its own creation) when the feed brings that change', async () => {
    const { store, hash, cache } = await cachedKey();
    await cache.pollChanges();
    // Still served from memory: during a store outage this key keeps working.
    await store.db.deleteFrom('api_keys').execute();
    const again = cache.get(hash);
    expect(again).not.toBeInstanceOf(Promise);
    expect(again).not.toBeNull();
  });

  it('drops a key when the feed brings a change made after it was loaded', async () => {
    const { store, hash, cache } = await cachedKey();
    await store.db.updateTable('api_keys').set({ revoked_at: Date.now() }).execute();
    await recordKeyChange(store.db, hash, Date.now());
    await cache.pollChanges();
    expect(await cache.get(hash)).toMatchObject({ revoked: true });
  });
});

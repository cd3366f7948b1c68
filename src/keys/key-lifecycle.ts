import type { Store } from '../store/database.js';
import type { ApiKeysTable } from '../store/schema.js';
import { generateApiKey, hashApiKey, maskParts } from './api-key-format.js';
import { keyHashesOf, recordKeyChange, revokeApiKey, rotateApiKeySecret } from './api-key-repository.js';
import { deleteKeySpendAlertsOfKey } from '../credits/key-spend-alerts.js';

/**
 * Revoking and rotating a key found by id, for the command line (the account API does the same
 * for the signed-in user's own keys). Every hash the key answered to goes to the change feed, so
 * running gateways drop it from their caches within their poll interval.
 */

/** A live (not revoked) key by its id, whoever owns it. */
export async function findLiveKeyById(store: Store, keyId: string): Promise<ApiKeysTable | undefined> {
  return store.db
    .selectFrom('api_keys')
    .selectAll()
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** False when the key was revoked meanwhile. */
export async function revokeKey(store: Store, key: ApiKeysTable, now: number): Promise<boolean> {
  return store.db.transaction().execute(async (transaction) => {
    if (!(await revokeApiKey(transaction, key.user_id, key.id, now))) return false;
    await deleteKeySpendAlertsOfKey(transaction, key.id);
    for (const hash of keyHashesOf(key)) await recordKeyChange(transaction, hash, now);
    return true;
  });
}

/**
 * A new secret for the key; the current one keeps working for `graceSeconds`. Returns the new
 * full key (shown once), or null when the key was revoked or rotated meanwhile.
 */
export async function rotateKey(
  store: Store,
  key: ApiKeysTable,
  graceSeconds: number,
  now: number,
): Promise<{ fullKey: string; previousExpiresAt: number } | null> {
  const fullKey = generateApiKey();
  const { start, end } = maskParts(fullKey);
  const secret = {
    keyHash: hashApiKey(fullKey),
    keyStart: start,
    keyEnd: end,
    previousKeyHash: key.key_hash,
    previousExpiresAt: now + graceSeconds * 1000,
  };
  const rotated = await store.db.transaction().execute(async (transaction) => {
    if (!(await rotateApiKeySecret(transaction, key.user_id, key.id, secret, now))) return false;
    // Old hashes (a previous secret a second rotation drops) and the new one (a negative cache
    // entry for it must not outlive the rotation).
    for (const hash of [...keyHashesOf(key), secret.keyHash]) await recordKeyChange(transaction, hash, now);
    return true;
  });
  return rotated ? { fullKey, previousExpiresAt: secret.previousExpiresAt } : null;
}

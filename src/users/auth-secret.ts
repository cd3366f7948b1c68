import { randomBytes } from 'node:crypto';
import type { Store } from '../store/database.js';
import { getOrCreateSetting } from '../store/settings-repository.js';

/** The installation's auth secret: BETTER_AUTH_SECRET when set, else generated once and stored. */
export async function resolveAuthSecret(
  store: Store,
  env: Record<string, string | undefined>,
  now: number,
): Promise<string> {
  const fromEnv = env.BETTER_AUTH_SECRET || env.GATEWAY_AUTH_SECRET;
  if (fromEnv) return fromEnv;
  return getOrCreateSetting(store.db, 'auth_secret', () => randomBytes(32).toString('base64url'), now);
}

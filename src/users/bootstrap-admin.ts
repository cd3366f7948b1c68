import { randomId } from '../shared/ids.js';
import type { Auth } from './create-auth.js';
import type { Store } from '../store/database.js';
import { countUsers } from './user-repository.js';
import { createUser } from './create-user.js';

export interface BootstrapResult {
  email: string;
  /** Set only when the password was generated here: print it once, it is not stored in clear. */
  generatedPassword: string | null;
}

/** On an empty store, creates the first account from GATEWAY_ADMIN_EMAIL / GATEWAY_ADMIN_PASSWORD. */
export async function bootstrapAdmin(
  auth: Auth,
  store: Store,
  env: Record<string, string | undefined>,
): Promise<BootstrapResult | null> {
  if ((await countUsers(store.db)) > 0) return null;
  const email = env.GATEWAY_ADMIN_EMAIL || 'admin@localhost';
  const generatedPassword = env.GATEWAY_ADMIN_PASSWORD ? null : randomId(20);
  await createUser(auth, store, { email, password: env.GATEWAY_ADMIN_PASSWORD || generatedPassword!, name: 'Admin' });
  return { email, generatedPassword };
}

import type { Auth } from './create-auth.js';
import type { Store } from '../store/database.js';
import { countUsers, findUserByEmail } from './user-repository.js';
import { createUser } from './create-user.js';
import { ConflictError } from '../shared/errors.js';
import { generatePassword } from './password-policy.js';
import { ensureFirstAdmin, getRole } from './user-roles.js';

export interface BootstrapResult {
  email: string;
  /** Set only when the password was generated here: print it once, it is not stored in clear. */
  generatedPassword: string | null;
}

/**
 * The first account's address when GATEWAY_ADMIN_EMAIL is unset. A reserved documentation domain
 * (RFC 2606) rather than admin@localhost, which the auth library's email check refuses.
 */
const DEFAULT_ADMIN_EMAIL = 'admin@example.com';

/**
 * On an empty store, creates the first account from GATEWAY_ADMIN_EMAIL / GATEWAY_ADMIN_PASSWORD.
 * When several instances start together on one store, one creates it and the others find it.
 * The first account holds the admin role (also on a store from before roles: its oldest account).
 */
export async function bootstrapAdmin(
  auth: Auth,
  store: Store,
  env: Record<string, string | undefined>,
): Promise<BootstrapResult | null> {
  if ((await countUsers(store.db)) > 0) {
    await ensureFirstAdmin(store.db, Date.now());
    return null;
  }
  const email = env.GATEWAY_ADMIN_EMAIL || DEFAULT_ADMIN_EMAIL;
  const generatedPassword = env.GATEWAY_ADMIN_PASSWORD ? null : generatePassword();
  try {
    await createUser(auth, store, {
      email,
      password: env.GATEWAY_ADMIN_PASSWORD || generatedPassword!,
      name: 'Admin',
    });
  } catch (error) {
    // Another instance created it first (our check or the auth library's own refused the duplicate).
    if (error instanceof ConflictError || (await countUsers(store.db)) > 0) {
      await ensureFirstAdmin(store.db, Date.now());
      return null;
    }
    throw error;
  }
  await ensureFirstAdmin(store.db, Date.now());
  return { email, generatedPassword };
}

/**
 * Why GATEWAY_ADMIN_EMAIL did nothing, when it is set and the store already had accounts: a line
 * for the start-up log (a tour run on a store an earlier start filled must not fail silently).
 * Null when the variable is unset.
 */
export async function skippedBootstrapNotice(
  store: Store,
  env: Record<string, string | undefined>,
): Promise<string | null> {
  const email = env.GATEWAY_ADMIN_EMAIL?.trim().toLowerCase();
  if (!email) return null;
  const accounts = await countUsers(store.db);
  const existing = await findUserByEmail(store.db, email);
  const reason = `the store already has ${accounts} account${accounts === 1 ? '' : 's'}, so GATEWAY_ADMIN_EMAIL and GATEWAY_ADMIN_PASSWORD create nothing (they apply to an empty store only)`;
  if (existing)
    return `${reason}; ${existing.email} exists (role ${await getRole(store.db, existing.id)}), its password unchanged`;
  return `${reason}; ${email} does not exist: create it with gateway users create --email ${email} --password … (add --exists-ok to reuse it if it does)`;
}

import type { Auth } from './create-auth.js';
import { ConflictError, InvalidRequestError } from '../shared/errors.js';
import type { Store } from '../store/database.js';
import { findUserByEmail } from './user-repository.js';
import { assertPasswordAllowed } from './password-policy.js';

export interface NewUser {
  email: string;
  password: string;
  name?: string;
}

/** Creates a user with an email and password through better-auth (it hashes the password). */
export async function createUser(auth: Auth, store: Store, input: NewUser): Promise<{ id: string; email: string }> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(email))
    throw new InvalidRequestError(`"${input.email}" is not an email address.`, 'email');
  assertPasswordAllowed(input.password);
  if (await findUserByEmail(store.db, email))
    throw new ConflictError(`A user with the email ${email} already exists.`, 'user_exists');
  const result = await auth.api.signUpEmail({
    body: { email, password: input.password, name: input.name ?? email.split('@')[0] },
  });
  return { id: result.user.id, email: result.user.email };
}

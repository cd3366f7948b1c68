import { toApiError } from './client';

/**
 * Sign-up, sign-in and sign-out are better-auth's routes under /api-account/auth (CONTRACT §2);
 * they are mounted as one catch-all, outside the OpenAPI document, so they are called directly.
 * Each sets or clears the HttpOnly session cookie the rest of the console rides on.
 */
async function post(path: string, body: unknown): Promise<unknown> {
  const response = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const parsed: unknown = await response.json().catch(() => null);
  if (!response.ok) throw toApiError(response.status, parsed);
  return parsed;
}

export function signIn(input: { email: string; password: string }): Promise<unknown> {
  return post('/api-account/auth/sign-in/email', { ...input, remember_me: true });
}

/**
 * Sign-up answers alike whether or not the email already had an account (so it tells nobody who
 * has one) and starts no session: signing in next is what proves the account is ours.
 */
export async function signUp(input: {
  name: string;
  email: string;
  password: string;
  invite_token?: string;
}): Promise<unknown> {
  await post('/api-account/auth/sign-up/email', input);
  return signIn({ email: input.email, password: input.password });
}

export function signOut(): Promise<unknown> {
  return post('/api-account/auth/sign-out', {});
}

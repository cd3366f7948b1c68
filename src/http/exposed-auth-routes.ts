import { NotFoundError } from '../shared/errors.js';

/**
 * The better-auth endpoints served under /api-account/auth/*, each described in the OpenAPI
 * document (accounts/auth-openapi.ts). Its other endpoints stay closed: password change and reset,
 * profile, sessions and deletion are served by our own routes (snake_case, password policy,
 * key revocation) on top of the same library calls, and the rest (social sign-in, account
 * linking, …) is not offered.
 */
const EXPOSED_AUTH_ROUTES: ReadonlyArray<{ method: 'GET' | 'POST'; path: string }> = [
  { method: 'POST', path: '/sign-up/email' },
  { method: 'POST', path: '/sign-in/email' },
  { method: 'POST', path: '/sign-out' },
  { method: 'GET', path: '/get-session' },
  // The link of an email-change confirmation mail (POST /api-account/user/email sends it).
  { method: 'GET', path: '/verify-email' },
];

/** Throws the 404 every other path under /api-account/auth/ gets. */
export function assertExposedAuthRoute(method: string, pathname: string): void {
  const route = pathname.replace(/^.*?\/auth(?=\/)/, '').replace(/\/$/, '');
  if (EXPOSED_AUTH_ROUTES.some((exposed) => exposed.method === method && exposed.path === route)) return;
  throw new NotFoundError(`Unknown endpoint: ${method} ${pathname}.`, 'unknown_url');
}

import type { FastifyRequest } from 'fastify';
import type { Store } from '../store/database.js';
import { PermissionDeniedError, RateLimitError } from '../shared/errors.js';
import type { AuthSettings } from '../users/auth-settings.js';
import type { InvitationService } from '../users/invitations.js';
import { addressKey, emailKey, type SignInLimiter } from '../users/sign-in-limiter.js';
import { assertPasswordAllowed } from '../users/password-policy.js';
import { findUserByEmail } from '../users/user-repository.js';

export interface AuthRouteGuardDeps {
  store: Store;
  settings: AuthSettings;
  invitations: InvitationService;
  limiter: SignInLimiter;
}

export interface GuardedAuthRequest {
  /** The body to hand to better-auth (our own fields removed). */
  body: unknown;
  /** Runs once better-auth has answered. */
  after?: (status: number) => Promise<void>;
}

type Fields = Record<string, unknown>;

/**
 * Our rules around better-auth's routes, applied before it sees the request: sign-up mode and
 * invitations (`auth.sign_up`), the password policy on every new password, and sign-in limits per
 * account and client address. Throws the error the client gets.
 */
export async function guardAuthRequest(
  pathname: string,
  body: unknown,
  request: FastifyRequest,
  deps: AuthRouteGuardDeps,
): Promise<GuardedAuthRequest> {
  const fields: Fields | null =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Fields) : null;
  const route = pathname.replace(/^.*\/auth(?=\/)/, '');
  switch (route) {
    case '/sign-up/email':
      return guardSignUp(fields, body, deps);
    case '/sign-in/email':
      return guardSignIn(fields, body, request, deps);
    case '/change-password':
    case '/reset-password':
      if (typeof fields?.newPassword === 'string') assertPasswordAllowed(fields.newPassword, 'newPassword');
      return { body };
    default:
      return { body };
  }
}

async function guardSignUp(
  fields: Fields | null,
  body: unknown,
  deps: AuthRouteGuardDeps,
): Promise<GuardedAuthRequest> {
  const { settings, invitations } = deps;
  if (settings.signUp === 'closed')
    throw new PermissionDeniedError(
      'Sign-up is closed on this gateway: an administrator creates accounts (gateway users create).',
      'sign_up_closed',
    );
  if (!fields) return { body };
  if (typeof fields.password === 'string') assertPasswordAllowed(fields.password);
  const { invite_token: inviteToken, ...forwarded } = fields;
  if (settings.signUp === 'open') return { body: forwarded };
  const email = typeof fields.email === 'string' ? fields.email.trim().toLowerCase() : '';
  const invitation = await invitations.claim(inviteToken, email);
  return {
    body: forwarded,
    async after(status) {
      // Sign-up answers alike whether or not the email was free; only a new account uses the invitation up.
      const user = status === 200 ? await findUserByEmail(deps.store.db, email) : undefined;
      const created = user ? await isNewSince(deps, user.id, invitation.usedAt!) : false;
      if (created) await invitations.markUsedBy(invitation.id, user!.id);
      else await invitations.release(invitation.id);
    },
  };
}

/** Whether the account was created at or after `since` (the moment the invitation was claimed). */
async function isNewSince(deps: AuthRouteGuardDeps, userId: string, since: number): Promise<boolean> {
  const row = await deps.store.db.selectFrom('user').select('createdAt').where('id', '=', userId).executeTakeFirst();
  const createdAt =
    row?.createdAt instanceof Date ? row.createdAt.getTime() : new Date(String(row?.createdAt)).getTime();
  // Clocks of the database and this process may differ by a little; an older account is days older.
  return Number.isFinite(createdAt) && createdAt >= since - 60_000;
}

async function guardSignIn(
  fields: Fields | null,
  body: unknown,
  request: FastifyRequest,
  deps: AuthRouteGuardDeps,
): Promise<GuardedAuthRequest> {
  if (typeof fields?.email !== 'string') return { body };
  // The account is keyed by a hash: Redis never holds the email addresses people tried.
  const account = emailKey(fields.email);
  // request.ip comes from X-Forwarded-For when server.trust_proxy says so: bound what a client can make a key of.
  const address = addressKey(request.ip).slice(0, 64);
  const admission = await deps.limiter.begin(account, address);
  if (!admission.allowed) {
    const seconds = Math.max(1, Math.ceil(admission.retryAfterMs / 1000));
    throw new RateLimitError(
      `Too many failed sign-ins for this account or from your address. Try again in ${seconds} s.`,
      'too_many_sign_in_attempts',
      { 'retry-after': String(seconds) },
    );
  }
  return {
    body,
    async after(status) {
      if (status === 200) await deps.limiter.succeeded(account, address);
    },
  };
}

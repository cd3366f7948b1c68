import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { Store } from '../../store/database.js';
import type { Clock } from '../../shared/clock.js';
import type { Auth } from '../../users/create-auth.js';
import type { KeyChangeAnnouncer } from '../../keys/key-change-broadcast.js';
import { toFetchHeaders } from '../../http/account-auth.js';
import { assertPasswordAllowed } from '../../users/password-policy.js';
import { findUserSummary } from '../../users/user-directory.js';
import { eraseAccount } from '../../users/erase-account.js';
import { AuthenticationError, InvalidRequestError } from '../../shared/errors.js';
import { toAccountError } from './auth-api-error.js';
import { withAuthContext } from '../../users/auth-async-context.js';
import { revokeResetTokens } from '../../users/password-reset-tokens.js';
import {
  ChangeEmailRequestedSchema,
  ChangeEmailSchema,
  ChangePasswordResultSchema,
  ChangePasswordSchema,
  DeleteAccountResultSchema,
  DeleteAccountSchema,
  MeSchema,
  ProfileUpdateSchema,
} from './profile-schemas.js';

export interface ProfileRouteDeps {
  store: Store;
  /** Where an email-change confirmation link leads once followed (the console). */
  publicUrl: string;
  clock: Clock;
  auth: Auth;
  announcer: KeyChangeAnnouncer;
  /**
   * Writes usage and statistics still buffered in memory, so that erasing finds (and anonymises)
   * every finished request's rows.
   */
  flushUsage?: () => Promise<void>;
}

const errors = {
  400: { $ref: 'ErrorEnvelope#' },
  401: { $ref: 'ErrorEnvelope#' },
};
const tags = ['account'];

/** The signed-in user's own account: profile, password, deletion (better-auth underneath). */
export function registerProfileRoutes(app: FastifyInstance, deps: ProfileRouteDeps): void {
  // Schemas are used inline: addSchema in a child scope would give it Fastify's default validator.
  const { store, auth } = deps;

  const me = async (userId: string) => {
    const user = await findUserSummary(store.db, userId);
    // Deleted between the session check and here: the session is gone with it.
    if (!user) throw new AuthenticationError('Sign in first.', 'not_signed_in');
    return { id: user.id, email: user.email, name: user.name, role: user.role, created_at: user.createdAt };
  };

  app.get(
    '/user/me',
    { schema: { summary: 'The signed-in user', tags, response: { 200: MeSchema, ...errors } } },
    async (request) => me(request.user!.id),
  );

  app.patch<{ Body: Static<typeof ProfileUpdateSchema> }>(
    '/user/me',
    {
      schema: {
        summary: 'Change the profile (name)',
        tags,
        body: ProfileUpdateSchema,
        response: { 200: MeSchema, ...errors },
      },
    },
    async (request) => {
      const name = request.body.name.trim();
      if (!name) throw new InvalidRequestError('name must not be blank.', 'name', 'invalid_value');
      await auth.api
        .updateUser({ body: { name }, headers: toFetchHeaders(request) })
        .catch((error: unknown) => Promise.reject(toAccountError(error)));
      return me(request.user!.id);
    },
  );

  app.post<{ Body: Static<typeof ChangePasswordSchema> }>(
    '/user/password',
    {
      schema: {
        summary: 'Change the password (the current one is required)',
        tags,
        body: ChangePasswordSchema,
        response: { 200: ChangePasswordResultSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { current_password: currentPassword, new_password: newPassword } = request.body;
      assertPasswordAllowed(newPassword, 'new_password');
      const result = await auth.api
        .changePassword({
          body: { currentPassword, newPassword, revokeOtherSessions: request.body.revoke_other_sessions ?? false },
          headers: toFetchHeaders(request),
          returnHeaders: true,
        })
        .catch((error: unknown) =>
          Promise.reject(toAccountError(error, { password: 'current_password', newPassword: 'new_password' })),
        );
      // A reset link mailed before the change must not set a password of its own afterwards.
      await revokeResetTokens(store.db, request.user!.id);
      const cookies = result.headers.getSetCookie();
      if (cookies.length > 0) reply.header('set-cookie', cookies);
      // The new session's token in its signed form (the cookie's value), as sign-in hands it out.
      const signed = result.headers.get('set-auth-token');
      const token = result.response.token ? (signed ? decodeURIComponent(signed) : result.response.token) : null;
      return { status: 'changed' as const, token };
    },
  );

  /** The current password, checked before anything that hands the account further. */
  const assertPassword = async (userId: string, password: string) => {
    const valid = await withAuthContext(auth, async (context) => {
      const account = await context.internalAdapter.findCredentialAccount(userId);
      return (
        account?.password !== undefined &&
        account.password !== null &&
        (await context.password.verify({ hash: account.password, password }))
      );
    });
    if (!valid) throw new InvalidRequestError('The password is not right.', 'password', 'invalid_password');
  };

  app.post<{ Body: Static<typeof ChangeEmailSchema> }>(
    '/user/email',
    {
      schema: {
        summary:
          'Change the email address: a confirmation link goes to the new address, and following it makes the change',
        tags,
        body: ChangeEmailSchema,
        response: { 200: ChangeEmailRequestedSchema, ...errors },
      },
    },
    async (request) => {
      await assertPassword(request.user!.id, request.body.password);
      const newEmail = request.body.new_email.trim().toLowerCase();
      if (newEmail === request.user!.email.toLowerCase())
        throw new InvalidRequestError('This is already the account’s email address.', 'new_email', 'invalid_value');
      await auth.api
        .changeEmail({ body: { newEmail, callbackURL: `${deps.publicUrl}/` }, headers: toFetchHeaders(request) })
        .catch((error: unknown) => Promise.reject(toAccountError(error)));
      return {
        status: 'confirmation_sent' as const,
        // The same answer when the address belongs to another account (then no mail is sent).
        message:
          'If the address can be used, a confirmation link was sent to it; the change happens when it is opened.',
      };
    },
  );

  app.delete<{ Body: Static<typeof DeleteAccountSchema> }>(
    '/user/me',
    {
      schema: {
        summary:
          'Delete the account: keys revoked at once, personal data erased, ledger and orders kept under an anonymous id',
        tags,
        body: DeleteAccountSchema,
        response: { 200: DeleteAccountResultSchema, ...errors },
      },
    },
    async (request) => {
      const userId = request.user!.id;
      await assertPassword(userId, request.body.password);
      await deps.flushUsage?.();
      const { revokedKeyHashes } = await eraseAccount(auth, store, userId, deps.clock.now());
      for (const hash of revokedKeyHashes) await deps.announcer.announce(hash);
      return { deleted: true as const, revoked_keys: revokedKeyHashes.length };
    },
  );
}

import { betterAuth } from 'better-auth';
import { bearer } from 'better-auth/plugins';
import { getMigrations } from 'better-auth/db/migration';
import { APIError } from 'better-auth/api';
import type { Store } from '../store/database.js';
import type { Mailer } from './mailer.js';
import { passwordResetMail } from './password-reset-mail.js';
import { emailChangeMail } from './email-change-mail.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './password-policy.js';
import { hashedSessionKyselyAdapter } from './hashed-session-adapter.js';
import { scopeAuthCalls } from './auth-async-context.js';
import { CLIENT_IP_HEADER } from './client-ip-header.js';
import { RESET_IDENTIFIER_PREFIX, revokeResetTokens, storedResetIdentifier } from './password-reset-tokens.js';

export interface AuthOptions {
  /** Public base URL of the gateway (cookies and redirects). */
  baseUrl: string;
  /** Signing secret; by default one generated per installation and kept in the store. */
  secret?: string;
  /** Browser origins allowed to send cookie-authenticated requests. */
  trustedOrigins?: string[];
  /** Sends password-reset and email-change links; without one, neither is available. */
  mailer?: Mailer;
  /** How long a reset link works (default one hour). */
  passwordResetTtlSeconds?: number;
  /** A mail that could not be sent (the API answers the same either way, so only the log knows). */
  onMailError?: (error: unknown) => void;
}

/** Accounts are better-auth's: users, password hashes, sessions and bearer tokens, on our store. */
export function createAuth(store: Store, secret: string, options: AuthOptions) {
  // Every call in a counted scope, so better-auth's async context tracking is off while none runs.
  return scopeAuthCalls(
    betterAuth({
      // The session table keeps only a SHA-256 of each token (see hashed-session-adapter.ts).
      database: hashedSessionKyselyAdapter(store.db, store.dialect),
      basePath: '/api-account/auth',
      baseURL: options.baseUrl,
      secret,
      trustedOrigins: options.trustedOrigins ?? [options.baseUrl],
      emailAndPassword: {
        enabled: true,
        minPasswordLength: MIN_PASSWORD_LENGTH,
        maxPasswordLength: MAX_PASSWORD_LENGTH,
        // Sign-up answers the same whether or not the email is taken (no session either way, sign in
        // next): a token for new accounts only would tell who has an account (issue 16, finding 6).
        autoSignIn: false,
        // A reset ends every session of the account: whoever had the old password is signed out.
        revokeSessionsOnPasswordReset: true,
        resetPasswordTokenExpiresIn: options.passwordResetTtlSeconds ?? 3600,
        // One live link per account: a new one revokes the others, a reset (or a change) all of them.
        onPasswordReset: async ({ user }) => revokeResetTokens(store.db, user.id),
        sendResetPassword: options.mailer
          ? async ({ user, token }) => {
              await revokeResetTokens(store.db, user.id, storedResetIdentifier(`${RESET_IDENTIFIER_PREFIX}${token}`));
              const mail = passwordResetMail(
                user.email,
                options.baseUrl,
                token,
                options.passwordResetTtlSeconds ?? 3600,
              );
              // Not awaited: an existing account must not answer slower than an unknown email.
              void options.mailer!.send(mail).catch((error: unknown) => options.onMailError?.(error));
            }
          : undefined,
      },
      // Reset tokens are stored as a hash (password-reset-tokens.ts); other verification rows as they are.
      verification: {
        storeIdentifier: {
          default: 'plain',
          overrides: {
            [RESET_IDENTIFIER_PREFIX]: { hash: async (identifier: string) => storedResetIdentifier(identifier) },
          },
        },
      },
      // Changing the email sends a link to the new address; the change happens when it is followed.
      emailVerification: {
        sendOnSignUp: false,
        sendVerificationEmail: options.mailer
          ? async ({ user, url }) => {
              void options
                .mailer!.send(emailChangeMail(user.email, url))
                .catch((error: unknown) => options.onMailError?.(error));
            }
          : undefined,
      },
      // Sign-in limits are ours (per account and per client address, shared through Redis):
      // better-auth's own is per instance and keys on X-Forwarded-For from anyone.
      rateLimit: { enabled: false },
      telemetry: { enabled: false },
      // better-auth turns its origin (CSRF) check off under NODE_ENV=test; keep it on so tests see production behaviour.
      advanced: { disableOriginCheck: false, ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] } },
      logger: { disabled: true },
      // Authorization: Bearer <session token> for API clients, besides the HttpOnly cookie for browsers.
      // Only signed tokens (what sign-in hands out), as in the cookie. The session table holds only a
      // hash of each token, so a copy of the database opens no session even with the secret (which by
      // default sits in the same database): see docs/security.md.
      plugins: [bearer({ requireSignature: true })],
      user: {
        // Through POST /api-account/user/email only (the password first), confirmed by a link to the new address.
        changeEmail: { enabled: true },
        // `gateway users disable` sets this; such an account gets no new session (its old ones are deleted).
        additionalFields: { disabled: { type: 'boolean', required: false, defaultValue: false, input: false } },
      },
      databaseHooks: {
        session: {
          create: {
            async before(session) {
              const user = await store.db
                .selectFrom('user')
                .select('disabled')
                .where('id', '=', session.userId)
                .executeTakeFirst();
              if (user?.disabled)
                throw new APIError('FORBIDDEN', { message: 'This account is disabled.', code: 'ACCOUNT_DISABLED' });
            },
          },
        },
      },
    }),
  );
}

export type Auth = ReturnType<typeof createAuth>;

/**
 * Creates or updates better-auth's own tables (user, session, account, verification). Its migrations
 * read the schema through Kysely itself, so they are given the store, not our session-hashing adapter.
 */
export async function migrateAuthTables(auth: Auth, store: Store): Promise<string[]> {
  const { toBeCreated, toBeAdded, runMigrations } = await getMigrations({
    ...auth.options,
    database: { db: store.db, type: store.dialect },
  });
  await runMigrations();
  return [
    ...toBeCreated.map((table) => `auth: create ${table.table}`),
    ...toBeAdded.map((table) => `auth: extend ${table.table}`),
  ];
}

import { Type, type Static } from '@sinclair/typebox';
import { parseConfigSection } from '../config/config-section.js';
import { DEFAULT_INVITATION_TTL_MS } from './invitations.js';

/** The `auth:` section of gateway.config.yaml. */
const AuthSectionSchema = Type.Object(
  {
    /** Who may create an account through POST /api-account/auth/sign-up/email. */
    sign_up: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('invite'), Type.Literal('closed')])),
    /** How long an invitation from `gateway users invite` stays usable. */
    invitation_ttl_hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 24 * 365 })),
    sign_in_limits: Type.Optional(
      Type.Object(
        {
          /** Failed sign-ins to one account before it is held back. */
          account_failures: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
          /** Failed sign-ins from one client address (any accounts) before it is held back. */
          address_failures: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000 })),
          /** The first hold; each further failure doubles it, up to max_lockout_seconds. */
          base_lockout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
          max_lockout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 24 * 3600 })),
          /** Failures are forgotten after this long without another one. */
          window_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 7 * 24 * 3600 })),
        },
        { additionalProperties: false },
      ),
    ),
    /** Password-reset requests (each one mails a link): per email and per client address. */
    password_reset_limits: Type.Optional(
      Type.Object(
        {
          /** Requests for one email address before it is held back. */
          email_requests: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
          /** Requests from one client address (any emails) before it is held back. */
          address_requests: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000 })),
          /** The first hold; each further request doubles it, up to max_lockout_seconds. */
          base_lockout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 24 * 3600 })),
          max_lockout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 7 * 24 * 3600 })),
          /** Requests are forgotten after this long without another one. */
          window_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 7 * 24 * 3600 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
type AuthSection = Static<typeof AuthSectionSchema>;

type SignUpMode = 'open' | 'invite' | 'closed';

export interface SignInLimitSettings {
  accountFailures: number;
  addressFailures: number;
  baseLockoutMs: number;
  maxLockoutMs: number;
  windowMs: number;
}

export interface AuthSettings {
  signUp: SignUpMode;
  invitationTtlMs: number;
  signInLimits: SignInLimitSettings;
  /** Password-reset requests, counted by the same rule (every request counts; none is taken back). */
  passwordResetLimits: SignInLimitSettings;
}

/**
 * `auth.sign_up` defaults to `open` for a local install (CONTRACT §2: `npm start` and sign up in
 * the console), and to `invite` under NODE_ENV=production, where a public sign-up page must be
 * asked for by name.
 */
export function parseAuthSettings(section: Record<string, unknown> | undefined, production: boolean): AuthSettings {
  const input: AuthSection = parseConfigSection('auth', section, AuthSectionSchema);
  const limits = input.sign_in_limits ?? {};
  const resets = input.password_reset_limits ?? {};
  return {
    signUp: input.sign_up ?? (production ? 'invite' : 'open'),
    invitationTtlMs: input.invitation_ttl_hours ? input.invitation_ttl_hours * 3600 * 1000 : DEFAULT_INVITATION_TTL_MS,
    signInLimits: {
      accountFailures: limits.account_failures ?? 5,
      addressFailures: limits.address_failures ?? 30,
      baseLockoutMs: (limits.base_lockout_seconds ?? 1) * 1000,
      maxLockoutMs: (limits.max_lockout_seconds ?? 900) * 1000,
      windowMs: (limits.window_seconds ?? 3600) * 1000,
    },
    // Three links per address an hour is plenty for a person; a bot gets three mails, not sixty.
    passwordResetLimits: {
      accountFailures: resets.email_requests ?? 3,
      addressFailures: resets.address_requests ?? 20,
      baseLockoutMs: (resets.base_lockout_seconds ?? 60) * 1000,
      maxLockoutMs: (resets.max_lockout_seconds ?? 3600) * 1000,
      windowMs: (resets.window_seconds ?? 3600) * 1000,
    },
  };
}

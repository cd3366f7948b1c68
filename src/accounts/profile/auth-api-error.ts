import { GatewayError, InvalidRequestError } from '../../shared/errors.js';

/** The shape of better-auth's APIError (better-call's), recognised by name as better-auth's own isAPIError also does. */
interface ApiErrorLike extends Error {
  body?: { code?: string; message?: string };
}

/** By name, not instanceof: importing better-auth's class here would load it at start (lazy-auth.ts). */
function isApiError(error: unknown): error is ApiErrorLike {
  return error instanceof Error && error.name === 'APIError';
}

/**
 * better-auth's server API throws its own APIError; the ones our self-service routes can meet
 * become our envelope, naming our (snake_case) field. Anything else is rethrown as it is.
 */
export function toAccountError(error: unknown, fields: { password?: string; newPassword?: string } = {}): unknown {
  if (!isApiError(error)) return error;
  const code = error.body?.code;
  switch (code) {
    case 'INVALID_PASSWORD':
      return new InvalidRequestError(
        'The current password is not right.',
        fields.password ?? 'password',
        'invalid_password',
      );
    case 'INVALID_TOKEN':
      return new InvalidRequestError(
        'This password-reset link is unknown, expired or already used: ask for a new one.',
        'token',
        'invalid_token',
      );
    case 'PASSWORD_TOO_SHORT':
    case 'PASSWORD_TOO_LONG':
      return new InvalidRequestError(
        error.body?.message ?? 'The new password has the wrong length.',
        fields.newPassword ?? 'new_password',
        'weak_password',
      );
    case 'CREDENTIAL_ACCOUNT_NOT_FOUND':
      return new InvalidRequestError('This account has no password sign-in.', null);
    case 'RESET_PASSWORD_DISABLED':
      return new GatewayError(
        503,
        'service_unavailable',
        'password_reset_unavailable',
        'Password reset is not available: this gateway has no mailer.',
      );
    default:
      return error;
  }
}

import { APIError } from 'better-auth/api';
import { GatewayError, InvalidRequestError } from '../../shared/errors.js';

/**
 * better-auth's server API throws its own APIError; the ones our self-service routes can meet
 * become our envelope, naming our (snake_case) field. Anything else is rethrown as it is.
 */
export function toAccountError(error: unknown, fields: { password?: string; newPassword?: string } = {}): unknown {
  if (!(error instanceof APIError)) return error;
  const code = (error.body as { code?: string } | undefined)?.code;
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

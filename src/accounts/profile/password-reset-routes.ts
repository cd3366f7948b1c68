import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { Auth } from '../../users/create-auth.js';
import type { PasswordResetRequests } from '../../users/password-reset-requests.js';
import { assertPasswordAllowed } from '../../users/password-policy.js';
import { toAccountError } from './auth-api-error.js';
import {
  PasswordResetConfirmSchema,
  PasswordResetDoneSchema,
  PasswordResetRequestedSchema,
  PasswordResetRequestSchema,
} from './profile-schemas.js';

const errors = { 400: { $ref: 'ErrorEnvelope#' }, 503: { $ref: 'ErrorEnvelope#' } };
const tags = ['account'];

/**
 * Password reset by an emailed link (better-auth's request-password-reset and reset-password, our
 * shapes). Asking answers the same whether or not the email has an account, after the same work:
 * the limits are counted, the rest runs in the background (users/password-reset-requests.ts).
 */
export function registerPasswordResetRoutes(app: FastifyInstance, auth: Auth, requests: PasswordResetRequests): void {
  app.post<{ Body: Static<typeof PasswordResetRequestSchema> }>(
    '/password-reset',
    {
      schema: {
        summary: 'Email a password-reset link (the same answer whether or not the address has an account)',
        tags,
        body: PasswordResetRequestSchema,
        response: { 200: PasswordResetRequestedSchema, 429: { $ref: 'ErrorEnvelope#' }, ...errors },
      },
    },
    async (request) => {
      await requests.request(request.body.email.trim().toLowerCase(), request.ip);
      return {
        status: 'requested' as const,
        message: 'If an account has this email address, a link to reset its password is on its way.',
      };
    },
  );

  app.post<{ Body: Static<typeof PasswordResetConfirmSchema> }>(
    '/password-reset/confirm',
    {
      schema: {
        summary: 'Set a new password with the token from the emailed link; every session of the account ends',
        tags,
        body: PasswordResetConfirmSchema,
        response: { 200: PasswordResetDoneSchema, ...errors },
      },
    },
    async (request) => {
      assertPasswordAllowed(request.body.new_password, 'new_password');
      await auth.api
        .resetPassword({ body: { token: request.body.token, newPassword: request.body.new_password } })
        .catch((error: unknown) => Promise.reject(toAccountError(error, { newPassword: 'new_password' })));
      return { status: 'reset' as const };
    },
  );
}

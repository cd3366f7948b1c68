import { Type, type TSchema } from '@sinclair/typebox';
import { ErrorEnvelopeSchema } from '../http/openapi-shared.js';

/**
 * better-auth's endpoints that the gateway serves (http/exposed-auth-routes.ts) are one catch-all
 * route in Fastify, so swagger cannot see them; this describes them in the OpenAPI document by
 * hand, with the same error envelope as every other route. Field names are the account API's
 * snake_case; better-auth's camelCase request names are accepted too.
 */
const AuthUserSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    name: Type.String(),
    image: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    email_verified: Type.Optional(Type.Boolean()),
    created_at: Type.Optional(Type.String({ description: 'ISO 8601 UTC' })),
    updated_at: Type.Optional(Type.String({ description: 'ISO 8601 UTC' })),
  },
  { additionalProperties: true },
);

const AuthSessionSchema = Type.Object(
  {
    id: Type.String(),
    token: Type.String({ description: 'The session token of this request itself' }),
    user_id: Type.Optional(Type.String()),
    expires_at: Type.Optional(Type.String()),
    created_at: Type.Optional(Type.String()),
    updated_at: Type.Optional(Type.String()),
    ip_address: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    user_agent: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { additionalProperties: true },
);

const SignedInSchema = Type.Object(
  {
    token: Type.String({
      description: 'The session token: send it as Authorization: Bearer <token> to /api-account/user/*',
    }),
    user: AuthUserSchema,
  },
  { additionalProperties: true },
);

const SignedUpSchema = Type.Object(
  {
    token: Type.Union([Type.String(), Type.Null()], {
      description: 'The session token when sign-up also signs in; null when it does not (then sign in next)',
    }),
    user: AuthUserSchema,
  },
  { additionalProperties: true },
);

const SignUpBodySchema = Type.Object(
  {
    email: Type.String({ format: 'email' }),
    password: Type.String({ description: 'At least 10 characters, not one of the most common passwords' }),
    name: Type.Optional(Type.String({ description: 'Defaults to the part of the email before the @' })),
    invite_token: Type.Optional(Type.String({ description: 'Needed when auth.sign_up is invite' })),
    remember_me: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);

const SignInBodySchema = Type.Object(
  {
    email: Type.String({ format: 'email' }),
    password: Type.String(),
    remember_me: Type.Optional(
      Type.Boolean({ description: 'false: the cookie ends with the browser session (default true)' }),
    ),
  },
  { additionalProperties: true },
);

const json = (schema: TSchema, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

const jsonBody = (schema: TSchema) => ({ required: true, content: { 'application/json': { schema } } });
const tags = ['auth'];
const session = [{ sessionAuth: [] }];

/** The path items, keyed by their full path. */
function authPaths(envelope: unknown): Record<string, unknown> {
  const error = (description: string) => ({ description, content: { 'application/json': { schema: envelope } } });
  return {
    '/api-account/auth/sign-up/email': {
      post: {
        summary: 'Create an account (auth.sign_up: open, or invite with an invitation)',
        description:
          'The password policy applies. Where sign-up also signs in, the answer carries the session token and sets the HttpOnly session cookie; otherwise token is null and the client signs in next. Requests without an Origin header (curl, SDKs) are accepted; browsers must come from a trusted origin.',
        tags,
        requestBody: jsonBody(SignUpBodySchema),
        responses: {
          200: json(SignedUpSchema, 'Signed up'),
          400: error('A missing or malformed field, a weak password (weak_password) or a bad invitation'),
          403: error('Sign-up is closed (sign_up_closed) or the browser origin is not trusted'),
          422: error('The sign-up service refused the address'),
          429: error('Too many attempts'),
        },
      },
    },
    '/api-account/auth/sign-in/email': {
      post: {
        summary: 'Sign in with email and password',
        description: 'Answers the session token and sets the HttpOnly session cookie.',
        tags,
        requestBody: jsonBody(SignInBodySchema),
        responses: {
          200: json(
            Type.Object(
              { ...SignedInSchema.properties, redirect: Type.Optional(Type.Boolean()) },
              { additionalProperties: true },
            ),
            'Signed in',
          ),
          400: error('A missing or malformed field'),
          401: error('Wrong email or password (the same answer for both)'),
          403: error('The account is disabled, or the browser origin is not trusted'),
          429: error('Too many failed attempts for this account or address; Retry-After says when to try again'),
        },
      },
    },
    '/api-account/auth/sign-out': {
      post: {
        summary: 'End the current session',
        tags,
        security: session,
        requestBody: { required: false, content: { 'application/json': { schema: Type.Object({}) } } },
        responses: {
          200: json(Type.Object({ success: Type.Boolean() }), 'The session (if any) is over; the cookie is cleared'),
          403: error('The browser origin is not trusted'),
        },
      },
    },
    '/api-account/auth/verify-email': {
      get: {
        summary: 'The link of an email-change confirmation mail: moves the account to the new address',
        description:
          'Sent by POST /api-account/user/email to the new address. Redirects (302) to callback_url, with ?error=INVALID_TOKEN (or TOKEN_EXPIRED) when the link is not valid any more.',
        tags,
        parameters: [
          { name: 'token', in: 'query', required: true, schema: { type: 'string' } },
          { name: 'callbackURL', in: 'query', required: false, schema: { type: 'string' } },
        ],
        responses: {
          302: { description: 'Done (or refused, with ?error=…): on to the callback URL' },
          401: error('An invalid or expired token without a callback URL'),
        },
      },
    },
    '/api-account/auth/get-session': {
      get: {
        summary: 'The current session and its user, or null without one',
        tags,
        security: session,
        responses: {
          200: json(
            Type.Union([Type.Object({ session: AuthSessionSchema, user: AuthUserSchema }), Type.Null()]),
            'The session, or null',
          ),
        },
      },
    },
  };
}

/** Adds the better-auth paths to swagger's document, their errors pointing at its envelope schema. */
export function withAuthPaths<T extends { paths?: Record<string, unknown>; components?: unknown }>(document: T): T {
  const schemas = (document.components as { schemas?: Record<string, { $id?: string }> } | undefined)?.schemas ?? {};
  const name = Object.keys(schemas).find((key) => schemas[key].$id === ErrorEnvelopeSchema.$id);
  const { $id: _id, ...inline } = ErrorEnvelopeSchema;
  // Swagger names added schemas `def-N`: the envelope is referenced by whatever name it was given.
  const envelope = name ? { $ref: `#/components/schemas/${name}` } : inline;
  return { ...document, paths: { ...document.paths, ...authPaths(envelope) } };
}

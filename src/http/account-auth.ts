import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Auth } from '../users/create-auth.js';
import { AuthenticationError, PermissionDeniedError } from '../shared/errors.js';
import { browserOrigin, isTrustedOrigin, untrustedOriginMessage, type OriginSettings } from './trusted-origins.js';
import { isDatabaseUnavailable } from '../store/database-errors.js';
import { DatabaseUnavailableError } from './error-handler.js';
import { passThroughCode, type ErrorCode, type PassThroughCode } from '../shared/error-codes.js';
import { assertExposedAuthRoute } from './exposed-auth-routes.js';
import { CLIENT_IP_HEADER } from '../users/client-ip-header.js';
import { AccountsUnavailableError } from '../users/lazy-auth.js';
import { guardAuthRequest, type AuthRouteGuardDeps } from './auth-route-guard.js';
import { snakeCaseKeys, toAuthRequestFields } from './snake-case-keys.js';

interface SignedInUser {
  id: string;
  email: string;
  name: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    user?: SignedInUser;
  }
}

/** Fastify headers → Fetch Headers, which better-auth reads. */
export function toFetchHeaders(request: FastifyRequest): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, String(value));
  }
  return headers;
}

/**
 * The account interface's authentication (CONTRACT §2): a better-auth session, from
 * `Authorization: Bearer <token>` or the session cookie. Sets request.user or answers 401.
 */
export function requireUser(auth: Auth): preHandlerAsyncHookHandler {
  return async function authenticateUser(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const session = await auth.api.getSession({ headers: toFetchHeaders(request) }).catch((error: unknown) => {
      // Accounts that could not be loaded, or a database that cannot be reached, are not a
      // signed-out user: 503, so the client retries.
      if (error instanceof AccountsUnavailableError) throw error;
      if (isDatabaseUnavailable(error) || isDatabaseUnavailable((error as { cause?: unknown })?.cause))
        throw new DatabaseUnavailableError(error);
      return null;
    });
    if (!session?.user)
      throw new AuthenticationError(
        'Sign in first: send "Authorization: Bearer <token>" from /api-account/auth/sign-in/email.',
        'not_signed_in',
      );
    request.user = { id: session.user.id, email: session.user.email, name: session.user.name };
  };
}

/**
 * Mounts better-auth under /api-account/auth/* (inside the account plugin). API clients (curl, SDKs) send no Origin; they
 * carry no cookie either, so there is nothing to forge: such requests are given our own origin.
 * A browser's POST is judged by our rule (trusted-origins.ts), the same as every other account
 * write: a trusted origin is handed to better-auth as our own (its list knows only public_url,
 * so `http://localhost:PORT` failed with a bare "Invalid origin"); an untrusted one with a cookie
 * is refused here, with a message that says which address to open.
 */
export function registerAuthRoutes(
  app: FastifyInstance,
  auth: Auth,
  baseUrl: string,
  guard: AuthRouteGuardDeps,
  origins: OriginSettings,
): void {
  app.route({
    method: ['GET', 'POST'],
    url: '/auth/*',
    schema: { hide: true },
    async handler(request, reply) {
      const headers = toFetchHeaders(request);
      if (!headers.has('origin') && !headers.has('cookie')) headers.set('origin', new URL(baseUrl).origin);
      if (request.method === 'POST') {
        const origin = browserOrigin(request);
        if (origin !== null && isTrustedOrigin(origin, request, origins)) {
          headers.set('origin', new URL(baseUrl).origin);
          headers.delete('referer');
        } else if (origin !== null && headers.has('cookie'))
          throw new PermissionDeniedError(untrustedOriginMessage(origin, origins), 'invalid_origin');
      }
      // The client address as server.trust_proxy decides it: better-auth records it on sessions.
      headers.set(CLIENT_IP_HEADER, request.ip);
      const url = new URL(request.url, baseUrl);
      assertExposedAuthRoute(request.method, url.pathname);
      const guarded = await guardAuthRequest(url.pathname, request.body, request, guard);
      const body =
        request.method === 'POST' && guarded.body !== undefined
          ? JSON.stringify(withDefaultName(url.pathname, toAuthRequestFields(guarded.body)))
          : undefined;
      if (body !== undefined) headers.set('content-type', 'application/json');
      headers.delete('content-length');
      const response = await auth.handler(new Request(url, { method: request.method, headers, body }));
      await guarded.after?.(response.status);
      reply.status(response.status);
      response.headers.forEach((value, name) => {
        if (name !== 'set-cookie' && name !== 'content-length') reply.header(name, value);
      });
      const cookies = response.headers.getSetCookie();
      if (cookies.length > 0) reply.header('set-cookie', cookies);
      const text = await response.text();
      if (response.status >= 400) {
        // better-auth's own errors → our envelope.
        let message = text;
        let code: ErrorCode | PassThroughCode = 'auth_error';
        try {
          const parsed = JSON.parse(text) as { message?: string; code?: string };
          message = parsed.message ?? text;
          code = passThroughCode(parsed.code?.toLowerCase()) ?? code;
        } catch {
          /* plain text */
        }
        const type =
          response.status === 401
            ? 'authentication_error'
            : response.status === 403
              ? 'permission_error'
              : 'invalid_request_error';
        return reply
          .type('application/json')
          .send({ error: { message: message || `HTTP ${response.status}`, type, code, param: null } });
      }
      const relayed = withSignedToken(text, response.headers.get('set-auth-token'));
      // better-auth answers camelCase; the account API answers snake_case only.
      if (response.headers.get('content-type')?.includes('application/json') && relayed !== '') {
        try {
          return reply.send(JSON.stringify(snakeCaseKeys(JSON.parse(relayed))));
        } catch {
          /* not JSON after all: relayed as it came */
        }
      }
      return reply.send(relayed);
    },
  });
}

/**
 * The session token a sign-in answers with, in its signed form (`<token>.<HMAC>`, the value of the
 * session cookie). Bearer tokens must be signed (`bearer({ requireSignature: true })`), as cookies
 * are; the session table holds only a hash of each token (users/hashed-session-adapter.ts).
 */
function withSignedToken(text: string, signed: string | null): string {
  if (!signed) return text;
  try {
    const parsed = JSON.parse(text) as { token?: unknown };
    if (typeof parsed?.token !== 'string') return text;
    return JSON.stringify({ ...parsed, token: decodeURIComponent(signed) });
  } catch {
    return text;
  }
}

/** CONTRACT §2 makes `name` optional at sign-up; better-auth requires one, so the email's local part stands in. */
function withDefaultName(pathname: string, body: unknown): unknown {
  if (!pathname.endsWith('/sign-up/email') || typeof body !== 'object' || body === null) return body;
  const fields = body as Record<string, unknown>;
  if (fields.name !== undefined && fields.name !== null && fields.name !== '') return body;
  return typeof fields.email === 'string' ? { ...fields, name: fields.email.split('@')[0] } : body;
}

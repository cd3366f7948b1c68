import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { PermissionDeniedError } from '../shared/errors.js';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** better-auth's session cookie (`better-auth.session_token`, `__Secure-` prefixed over HTTPS). */
const SESSION_COOKIE = /(?:^|;\s*)(?:__Secure-)?better-auth\.session_token=/;

/** The origin a Referer names, or null. */
function refererOrigin(referer: string | undefined): string | null {
  if (!referer) return null;
  try {
    return new URL(referer).origin;
  } catch {
    return null;
  }
}

/**
 * CSRF protection for the account API (issue 16, finding 7; CONTRACT §2): a state-changing
 * request under /api-account that carries the session cookie, and no Authorization header, must
 * come from a trusted origin: the gateway's own (server.public_url, or the host the request was
 * sent to) or one of server.cors_origins. The Origin header decides, the Referer when a browser
 * sent none; with neither, the request is refused. A browser cannot attach a session cookie and
 * forge these headers; API clients authenticate with a bearer token and are not affected (a
 * cross-site page cannot send an Authorization header without CORS allowing it).
 */
export function originCheck(options: { publicUrl: string; corsOrigins: readonly string[] }) {
  const trusted = new Set([
    new URL(options.publicUrl).origin,
    ...options.corsOrigins.map((origin) => origin.toLowerCase()),
  ]);
  return function checkOrigin(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
    if (!STATE_CHANGING.has(request.method) || !request.url.startsWith('/api-account/')) return done();
    const cookie = request.headers.cookie;
    if (!cookie || !SESSION_COOKIE.test(cookie) || request.headers.authorization) return done();
    const originHeader = request.headers.origin;
    const origin = originHeader !== undefined ? originHeader.toLowerCase() : refererOrigin(request.headers.referer);
    if (
      origin &&
      origin !== 'null' &&
      (trusted.has(origin) || origin === `${request.protocol}://${request.host}`.toLowerCase())
    )
      return done();
    done(
      new PermissionDeniedError(
        origin
          ? `Cross-site request refused: ${origin} is not an origin this gateway trusts (server.public_url, server.cors_origins).`
          : 'Cross-site request refused: a request signed in with the session cookie must carry an Origin or Referer header.',
        'invalid_origin',
      ),
    );
  };
}

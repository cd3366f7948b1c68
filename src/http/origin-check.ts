import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { PermissionDeniedError } from '../shared/errors.js';
import { browserOrigin, isTrustedOrigin, untrustedOriginMessage, type OriginSettings } from './trusted-origins.js';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** better-auth's session cookie (`better-auth.session_token`, `__Secure-` prefixed over HTTPS). */
const SESSION_COOKIE = /(?:^|;\s*)(?:__Secure-)?better-auth\.session_token=/;

/**
 * Whether the route Fastify matched is under the account API. The routed pattern, not the raw URL:
 * the router decodes percent-escapes, so `/%61pi-account/…` reaches the same handler as
 * `/api-account/…` and must be checked the same (issue 25, item 4). No route matched: nothing runs.
 */
function routedToAccountApi(request: FastifyRequest): boolean {
  const routed = request.routeOptions.url;
  return routed !== undefined && (routed === '/api-account' || routed.startsWith('/api-account/'));
}

/**
 * CSRF protection for the account API (issue 16, finding 7; issue 25, item 4; CONTRACT §2): a
 * state-changing request routed to /api-account that carries the session cookie must come from a
 * trusted origin (trusted-origins.ts: the gateway's own, one of server.cors_origins, or while no
 * public_url is set a loopback origin on the gateway's port). The Origin header decides, the Referer when a browser sent none;
 * with neither, the request is refused. A browser cannot attach a session cookie and forge these
 * headers. Any other header (an Authorization header included, even a junk one while the cookie
 * is what authenticates) changes nothing: whoever sends the cookie is checked. API clients that
 * authenticate with a bearer token send no session cookie and are not affected.
 */
export function originCheck(settings: OriginSettings) {
  return function checkOrigin(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
    if (!STATE_CHANGING.has(request.method)) return done();
    // The cookie first: API clients send none, and request.routeOptions builds an object per read.
    const cookie = request.headers.cookie;
    if (!cookie || !SESSION_COOKIE.test(cookie) || !routedToAccountApi(request)) return done();
    const origin = browserOrigin(request);
    if (origin && isTrustedOrigin(origin, request, settings)) return done();
    done(new PermissionDeniedError(untrustedOriginMessage(origin, settings), 'invalid_origin'));
  };
}

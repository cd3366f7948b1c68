import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Headers a browser client may read from our answers (ids, routing, limits). */
const EXPOSED =
  'x-request-id, x-gateway-provider, x-gateway-model, x-gateway-attempts, x-gateway-warnings, retry-after, x-ratelimit-limit-requests, x-ratelimit-remaining-requests, x-ratelimit-reset-requests, x-ratelimit-limit-tokens, x-ratelimit-remaining-tokens, x-ratelimit-reset-tokens';
const METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
const DEFAULT_HEADERS = 'authorization, content-type, x-api-key, anthropic-version, anthropic-beta, x-request-id';

/**
 * CORS for browser clients. /v1/* is called with bearer keys, never cookies, so any origin may call
 * it (no credentials). /api-account/* uses session cookies, so only the configured origins get
 * through, with credentials. Preflights are answered here, before auth and routing.
 */
export function registerCors(app: FastifyInstance, accountOrigins: string[]): void {
  const allowed = new Set(accountOrigins);
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const origin = request.headers.origin;
    if (!origin) return done();
    const path = request.url;
    let allowOrigin: string | null = null;
    let credentials = false;
    if (path.startsWith('/v1/') || path === '/v1') allowOrigin = '*';
    else if (path.startsWith('/api-account/') && allowed.has(origin)) {
      allowOrigin = origin;
      credentials = true;
    }
    if (allowOrigin === null) return done();
    reply.header('access-control-allow-origin', allowOrigin);
    if (credentials) reply.header('access-control-allow-credentials', 'true').header('vary', 'Origin');
    reply.header('access-control-expose-headers', EXPOSED);
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
      const asked = request.headers['access-control-request-headers'];
      reply
        .header('access-control-allow-methods', METHODS)
        .header('access-control-allow-headers', typeof asked === 'string' && asked !== '' ? asked : DEFAULT_HEADERS)
        .header('access-control-max-age', '86400')
        .status(204)
        .send();
      return;
    }
    done();
  });
}

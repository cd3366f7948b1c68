import type { FastifyInstance, FastifyReply } from 'fastify';
import { contentSecurityPolicy } from '../shared/content-security-policy.js';

/** Sets the page's policy (and the headers every page carries) on a reply. */
export function setPageSecurityHeaders(reply: FastifyReply, policy: string): FastifyReply {
  return reply
    .header('content-security-policy', policy)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY');
}

/**
 * The safety net: an HTML answer that set no policy of its own (a page added later, an error
 * page) gets the strictest one, with no inline script or style at all.
 */
export function registerDefaultContentSecurityPolicy(app: FastifyInstance): void {
  const strict = contentSecurityPolicy();
  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('text/html') && !reply.hasHeader('content-security-policy'))
      setPageSecurityHeaders(reply, strict);
    done(null, payload);
  });
}

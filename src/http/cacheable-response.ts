import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Public, read-mostly responses (catalog, providers, rankings): Cache-Control plus a strong
 * ETag of the exact body, and 304 when the client already holds it.
 */
export function sendCacheable(
  request: FastifyRequest,
  reply: FastifyReply,
  body: unknown,
  maxAgeSeconds: number,
): FastifyReply {
  const payload = JSON.stringify(body);
  const etag = `"${createHash('sha1').update(payload).digest('base64url')}"`;
  reply.header('cache-control', `public, max-age=${maxAgeSeconds}`);
  reply.header('etag', etag);
  const ifNoneMatch = request.headers['if-none-match'];
  if (
    typeof ifNoneMatch === 'string' &&
    ifNoneMatch.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')
  ) {
    return reply.status(304).send();
  }
  return reply.type('application/json; charset=utf-8').send(payload);
}

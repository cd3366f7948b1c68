import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/**
 * Clients (fetch wrappers, SDKs) often send `Content-Type: application/json` on every request,
 * including a DELETE or a sign-out that has no body. JSON parsing of nothing would refuse them 400
 * (issue 16, finding 9); a request that declares an empty body simply has none to parse.
 */
export function acceptEmptyJsonBodies(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  const headers = request.headers;
  if (
    headers['content-type'] !== undefined &&
    (headers['content-length'] === '0' ||
      (headers['content-length'] === undefined && headers['transfer-encoding'] === undefined)) &&
    (request.method === 'DELETE' || (request.method === 'POST' && isSignOut(request.url)))
  )
    delete headers['content-type'];
  done();
}

/** Without splitting every POST's URL (this hook runs on every request, /v1 included). */
function isSignOut(url: string): boolean {
  const query = url.indexOf('?');
  return (query === -1 ? url : url.slice(0, query)).endsWith('/auth/sign-out');
}

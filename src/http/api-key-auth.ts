import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify';
import type { ApiKeyCache } from '../keys/api-key-cache.js';
import { hashApiKey, looksLikeApiKey } from '../keys/api-key-format.js';
import type { ApiKeyRecord } from '../routing/api-key-record.js';
import { AuthenticationError, PermissionDeniedError } from '../shared/errors.js';
import type { Clock } from '../shared/clock.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey?: ApiKeyRecord;
  }
}

/** The presented key: `Authorization: Bearer <key>`, or `x-api-key: <key>`. */
function presentedKey(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return match ? match[1] : authorization.trim();
  }
  const header = request.headers['x-api-key'];
  return Array.isArray(header) ? header[0] : header;
}

/**
 * /v1 authentication (CONTRACT §2) from the in-process key cache: no database read per request.
 * Unknown and revoked keys get the same 401; disabled and expired keys a 403 that says which.
 * Routes run it as an `onRequest` hook: the key is checked before the body is read or validated, so
 * a caller without a valid key learns nothing about the request format (401, never a 400).
 */
export function apiKeyAuth(
  cache: ApiKeyCache,
  clock: Clock,
  options: { optional?: boolean } = {},
): onRequestHookHandler {
  const admit = (request: FastifyRequest, record: ApiKeyRecord | null): void => {
    // A rotated key's previous secret past its grace period is as unknown as any other string.
    const retired = record?.secretExpiresAt != null && record.secretExpiresAt <= clock.now();
    if (!record || record.revoked || retired) throw new AuthenticationError();
    if (record.disabled) throw new PermissionDeniedError('This API key is disabled.', 'key_disabled');
    if (record.expiresAt !== null && record.expiresAt <= clock.now())
      throw new PermissionDeniedError('This API key has expired.', 'key_expired');
    request.apiKey = record;
    cache.noteUsed(record.id);
  };
  // A callback hook, not an async one: a key found in the cache (every request but a key's first)
  // is checked without a promise or a microtask; only a cache miss waits for the store.
  return function authenticate(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
    // done() runs the rest of the request synchronously: it is called outside every try, once.
    let found: ApiKeyRecord | null | Promise<ApiKeyRecord | null>;
    let failure: Error | undefined;
    try {
      const key = presentedKey(request);
      if (!key) {
        if (!options.optional)
          throw new AuthenticationError(
            'Missing API key. Send it as "Authorization: Bearer sk-gw-…".',
            'missing_api_key',
          );
        found = null;
      } else {
        if (!looksLikeApiKey(key)) throw new AuthenticationError();
        found = cache.get(hashApiKey(key));
        if (!(found instanceof Promise)) admit(request, found);
      }
    } catch (error) {
      failure = error as Error;
      found = null;
    }
    if (!(found instanceof Promise)) return failure ? done(failure) : done();
    found
      .then((record) => {
        admit(request, record);
      })
      .then(
        () => done(),
        (error: Error) => done(error),
      );
  };
}

import { describe, expect, it } from 'vitest';
import { toGatewayError } from './error-handler.js';

/** Errors Fastify and the database driver raise, as the client sees them. */
function fastifyError(code: string, statusCode: number, message = 'x'): Error {
  return Object.assign(new Error(message), { code, statusCode });
}

describe('toGatewayError', () => {
  it.each([
    [fastifyError('FST_ERR_BAD_URL', 400), 400, 'invalid_url'],
    [fastifyError('FST_ERR_MAX_PARAM_LENGTH', 414), 414, 'url_too_long'],
    [fastifyError('FST_ERR_CTP_BODY_TOO_LARGE', 413), 413, 'payload_too_large'],
    [fastifyError('FST_ERR_CTP_INVALID_MEDIA_TYPE', 415), 415, 'unsupported_media_type'],
    [new URIError('URI malformed'), 400, 'invalid_url'],
    [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      503,
      'database_unavailable',
    ],
    [new Error('timeout exceeded when trying to connect'), 503, 'database_unavailable'],
    [
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
      503,
      'database_unavailable',
    ],
    [
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      503,
      'database_unavailable',
    ],
    [new Error('Connection terminated unexpectedly'), 503, 'database_unavailable'],
    [Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }), 503, 'database_unavailable'],
    // A write whose last try found another connection's commit newer than its snapshot.
    [Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY_SNAPSHOT' }), 503, 'database_unavailable'],
    [
      Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' }),
      400,
      'invalid_value',
    ],
    [new Error('something else'), 500, 'internal_error'],
  ])('%s → %i %s', (error, status, code) => {
    const gatewayError = toGatewayError(error, 1024);
    expect(gatewayError.status).toBe(status);
    expect(gatewayError.code).toBe(code);
  });

  it('a database outage carries Retry-After', () => {
    expect(toGatewayError(new Error('Query read timeout'), 1024).headers).toEqual({ 'retry-after': '1' });
  });
});

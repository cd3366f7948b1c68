import { describe, expect, it } from 'vitest';
import { fixtureBytes } from '../../../test/helpers/fixtures.js';
import { mapGeminiError } from './gemini-error.js';

describe('mapGeminiError', () => {
  it.each([
    [
      'error.400.invalid_argument.json',
      400,
      400,
      'invalid_request_error',
      'invalid_argument',
      'Gemini: Request contains an invalid argument.',
      undefined,
    ],
    [
      'error.404.not_found.json',
      404,
      404,
      'not_found_error',
      'not_found',
      expect.stringMatching(/^Gemini: models\/custom-gemini-2.0-flash is not found/),
      undefined,
    ],
    [
      'error.429.resource_exhausted.json',
      429,
      429,
      'rate_limit_error',
      'resource_exhausted',
      'Gemini: You exceeded your current quota, please check your plan.',
      { 'retry-after': '35' },
    ],
  ])('%s', (fixture, status, expectedStatus, type, code, message, headers) => {
    const error = mapGeminiError(status, fixtureBytes('gemini', fixture).toString(), {}, 'Gemini');
    expect(error.status).toBe(expectedStatus);
    expect(error.toEnvelope().error).toEqual({ message, type, code, param: null });
    expect(error.headers).toEqual(headers);
  });

  it.each([
    [500, 'INTERNAL', 502],
    [503, 'UNAVAILABLE', 503],
    [504, 'DEADLINE_EXCEEDED', 504],
    [401, 'UNAUTHENTICATED', 401],
    [403, 'PERMISSION_DENIED', 403],
  ])('HTTP %s %s → %s', (status, statusName, expected) => {
    const error = mapGeminiError(
      status,
      JSON.stringify({ error: { code: status, message: 'm', status: statusName } }),
      {},
      'Gemini',
    );
    expect(error.status).toBe(expected);
    expect(error.code).toBe(statusName.toLowerCase());
  });

  it('a Retry-After header wins over RetryInfo; a body that is not JSON still gives a clean error', () => {
    expect(
      mapGeminiError(
        429,
        fixtureBytes('gemini', 'error.429.resource_exhausted.json').toString(),
        { 'retry-after': '3' },
        'Gemini',
      ).headers,
    ).toEqual({ 'retry-after': '3' });
    const error = mapGeminiError(502, '<html>bad gateway</html>', {}, 'Gemini');
    expect(error.status).toBe(502);
    expect(error.message).toBe('Gemini: <html>bad gateway</html>');
  });
});

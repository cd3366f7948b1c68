import { describe, expect, it } from 'vitest';
import { fixtureBytes } from '../../../test/helpers/fixtures.js';
import { UpstreamClientError, UpstreamError } from '../../shared/errors.js';
import { mapBedrockError } from './bedrock-error.js';

describe('mapBedrockError', () => {
  it('the recorded 400 for an unknown model keeps its status and message', () => {
    const error = mapBedrockError(
      400,
      fixtureBytes('bedrock', 'error.400.converse-stream.json'),
      { 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/' },
      'Bedrock',
    );
    expect(error).toBeInstanceOf(UpstreamClientError);
    expect(error.toEnvelope()).toEqual({
      error: {
        message: 'Bedrock: The provided model identifier is invalid.',
        type: 'invalid_request_error',
        code: 'validation_exception',
        param: null,
      },
    });
  });

  it.each([
    [429, 'ThrottlingException', 429, 'throttling_exception', UpstreamClientError],
    [503, 'ServiceUnavailableException', 503, 'service_unavailable_exception', UpstreamError],
    [500, 'InternalServerException', 502, 'internal_server_exception', UpstreamError],
    [403, 'AccessDeniedException', 403, 'access_denied_exception', UpstreamClientError],
    [500, undefined, 502, 'upstream_error', UpstreamError],
  ])('HTTP %i %s → %i %s', (status, errorType, expectedStatus, code, errorClass) => {
    const headers = errorType ? { 'x-amzn-errortype': errorType } : {};
    const error = mapBedrockError(status, new TextEncoder().encode('{"message":"nope"}'), headers, 'Bedrock');
    expect(error).toBeInstanceOf(errorClass);
    expect(error.status).toBe(expectedStatus);
    expect(error.code).toBe(code);
    expect(error.message).toBe('Bedrock: nope');
  });
});

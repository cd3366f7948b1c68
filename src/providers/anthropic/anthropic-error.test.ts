import { describe, expect, it } from 'vitest';
import { fixtureBytes } from '../../../test/helpers/fixtures.js';
import { mapAnthropicError, mapAnthropicStreamError } from './anthropic-error.js';

describe('mapAnthropicError', () => {
  it.each([
    [
      'error.400.invalid_request_error.json',
      400,
      'invalid_request_error',
      "Anthropic: This model does not support effort level 'xhigh'. Supported levels: high, low, max, medium.",
    ],
    [
      'error.400.prompt-too-long.issue-quote.json',
      400,
      'invalid_request_error',
      'Anthropic: prompt is too long: 205351 tokens > 200000 maximum',
    ],
  ])('%s keeps its status and words', (fixture, status, code, message) => {
    const error = mapAnthropicError(status, fixtureBytes('anthropic', fixture).toString(), {}, 'Anthropic');
    expect(error.toEnvelope()).toEqual({ error: { message, type: 'invalid_request_error', code, param: null } });
    expect(error.status).toBe(status);
  });

  it.each([
    [401, 'authentication_error', 401, 'authentication_error'],
    [403, 'permission_error', 403, 'permission_error'],
    [404, 'not_found_error', 404, 'not_found_error'],
    [413, 'request_too_large', 413, 'invalid_request_error'],
    [429, 'rate_limit_error', 429, 'rate_limit_error'],
    [500, 'api_error', 502, 'upstream_error'],
    [529, 'overloaded_error', 503, 'upstream_error'],
  ])('HTTP %s %s → %s %s', (status, errorType, expectedStatus, expectedType) => {
    const error = mapAnthropicError(
      status,
      JSON.stringify({ type: 'error', error: { type: errorType, message: 'm' } }),
      { 'retry-after': '7' },
      'Anthropic',
    );
    expect(error.status).toBe(expectedStatus);
    expect(error.type).toBe(expectedType);
    expect(error.code).toBe(errorType);
    if (status === 429 || status === 529) expect(error.headers).toEqual({ 'retry-after': '7' });
  });

  it('an unreadable body still names the provider and status', () => {
    const error = mapAnthropicError(502, '', {}, 'Anthropic');
    expect(error.status).toBe(502);
    expect(error.message).toBe('Anthropic: HTTP 502');
  });

  it('a mid-stream overloaded_error is a 503 with its own code', () => {
    const error = mapAnthropicStreamError({ error: { type: 'overloaded_error', message: 'Overloaded' } }, 'Anthropic');
    expect(error.toEnvelope()).toEqual({
      error: { message: 'Anthropic: Overloaded', type: 'upstream_error', code: 'overloaded_error', param: null },
    });
    expect(error.status).toBe(503);
  });
});

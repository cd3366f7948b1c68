import { passThroughCode } from '../../shared/error-codes.js';
import { GatewayError, UpstreamClientError, UpstreamError } from '../../shared/errors.js';

/** What a provider's error body said, already pulled out of its own shape. */
export interface UpstreamErrorDetails {
  message: string;
  /** The provider's error kind, used as our `code` (e.g. overloaded_error, RESOURCE_EXHAUSTED → resource_exhausted). */
  code: string | null;
  /** An OpenAI-style error type when the provider's kind maps to one. */
  type: string | null;
  param?: string | null;
  /** Seconds, for the client's Retry-After. */
  retryAfter?: string;
}

const CLIENT_STATUSES = new Set([400, 401, 403, 404, 409, 413, 415, 422, 429]);

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'invalid_request_error',
  422: 'invalid_request_error',
};

/**
 * The status rule every adapter shares: errors that are the client's keep their status and the
 * provider's words (so fallbacks stop), 429 stays a rate limit (so fallbacks try the next),
 * overload becomes 503, timeouts 504, anything else 502.
 */
export function upstreamErrorFromStatus(
  status: number,
  details: UpstreamErrorDetails,
  providerName: string,
): GatewayError {
  const message = `${providerName}: ${details.message}`;
  const code = passThroughCode(details.code);
  const retryHeaders = details.retryAfter ? { 'retry-after': details.retryAfter } : undefined;
  if (status === 429) {
    return new UpstreamClientError(
      429,
      'rate_limit_error',
      code ?? 'upstream_rate_limited',
      message,
      null,
      retryHeaders,
    );
  }
  if (CLIENT_STATUSES.has(status)) {
    return new UpstreamClientError(
      status,
      details.type ?? TYPE_BY_STATUS[status] ?? 'invalid_request_error',
      code ?? `upstream_${status}`,
      message,
      details.param ?? null,
    );
  }
  if (status === 503 || status === 529)
    return new UpstreamError(503, code ?? 'upstream_unavailable', message, { headers: retryHeaders });
  if (status === 504 || status === 408) return new UpstreamError(504, code ?? 'upstream_timeout', message);
  return new UpstreamError(502, code ?? 'upstream_error', message);
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

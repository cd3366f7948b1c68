import type { GatewayError } from '../../shared/errors.js';
import { headerValue, upstreamErrorFromStatus } from '../shared/upstream-error-from-status.js';

interface GoogleRpcStatus {
  code?: unknown;
  message?: unknown;
  status?: unknown;
  details?: Array<{ '@type'?: string; retryDelay?: string }>;
}

const OPENAI_TYPE_BY_STATUS: Record<string, string> = {
  INVALID_ARGUMENT: 'invalid_request_error',
  FAILED_PRECONDITION: 'invalid_request_error',
  UNAUTHENTICATED: 'authentication_error',
  PERMISSION_DENIED: 'permission_error',
  NOT_FOUND: 'not_found_error',
};

/** The google.rpc.Status inside an error body, which may be wrapped in a one-element array. */
function googleRpcStatus(parsed: unknown): GoogleRpcStatus | undefined {
  const value = Array.isArray(parsed) ? parsed[0] : parsed;
  const error = (value as { error?: unknown } | null)?.error;
  return error && typeof error === 'object' ? (error as GoogleRpcStatus) : undefined;
}

/**
 * A google.rpc.Status error → our error. The HTTP status decides (the body's `code` when the
 * error came inside a 200 stream); the Status name becomes the code in lower case, and a
 * RetryInfo delay becomes Retry-After.
 */
export function mapGeminiError(
  status: number,
  text: string,
  headers: Record<string, string | string[] | undefined>,
  providerName: string,
): GatewayError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const rpc = googleRpcStatus(parsed);
  const statusName = typeof rpc?.status === 'string' ? rpc.status : null;
  const message = (typeof rpc?.message === 'string' && rpc.message) || text.slice(0, 300).trim() || `HTTP ${status}`;
  const effectiveStatus = status >= 200 && status < 300 && typeof rpc?.code === 'number' ? rpc.code : status;
  return upstreamErrorFromStatus(
    effectiveStatus,
    {
      message,
      code: statusName ? statusName.toLowerCase() : null,
      type: statusName ? (OPENAI_TYPE_BY_STATUS[statusName] ?? null) : null,
      retryAfter: headerValue(headers['retry-after']) ?? retryAfterFromDetails(rpc),
    },
    providerName,
  );
}

function retryAfterFromDetails(rpc: GoogleRpcStatus | undefined): string | undefined {
  const delay = rpc?.details?.find((detail) => detail['@type']?.endsWith('google.rpc.RetryInfo'))?.retryDelay;
  const seconds = typeof delay === 'string' ? Number.parseFloat(delay) : Number.NaN;
  return Number.isFinite(seconds) ? String(Math.ceil(seconds)) : undefined;
}

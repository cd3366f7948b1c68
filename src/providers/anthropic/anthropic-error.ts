import type { GatewayError } from '../../shared/errors.js';
import { headerValue, upstreamErrorFromStatus } from '../shared/upstream-error-from-status.js';

/** Anthropic's error types and the HTTP status each stands for (used for errors inside a stream). */
const STATUS_BY_ERROR_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** OpenAI error types for the Anthropic ones that differ. */
const OPENAI_TYPE_BY_ERROR_TYPE: Record<string, string> = {
  not_found_error: 'not_found_error',
  request_too_large: 'invalid_request_error',
  billing_error: 'insufficient_quota',
};

interface AnthropicErrorBody {
  error?: { type?: unknown; message?: unknown };
  request_id?: unknown;
}

/** An Anthropic error answer (any status) → our error, keeping Anthropic's words and error type as the code. */
export function mapAnthropicError(
  status: number,
  text: string,
  headers: Record<string, string | string[] | undefined>,
  providerName: string,
): GatewayError {
  let parsed: AnthropicErrorBody | undefined;
  try {
    parsed = JSON.parse(text) as AnthropicErrorBody;
  } catch {
    parsed = undefined;
  }
  const errorType = typeof parsed?.error?.type === 'string' ? parsed.error.type : null;
  const message =
    (typeof parsed?.error?.message === 'string' && parsed.error.message) ||
    text.slice(0, 300).trim() ||
    `HTTP ${status}`;
  return upstreamErrorFromStatus(
    status,
    {
      message,
      code: errorType,
      type: errorType ? (OPENAI_TYPE_BY_ERROR_TYPE[errorType] ?? errorType) : null,
      retryAfter: headerValue(headers['retry-after']),
    },
    providerName,
  );
}

/** An `event: error` inside a 200 stream: the status comes from the error's type. */
export function mapAnthropicStreamError(payload: AnthropicErrorBody, providerName: string): GatewayError {
  const errorType = typeof payload.error?.type === 'string' ? payload.error.type : '';
  const status = STATUS_BY_ERROR_TYPE[errorType] ?? 502;
  return mapAnthropicError(status, JSON.stringify(payload), {}, providerName);
}

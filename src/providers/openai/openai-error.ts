import { passThroughCode } from '../../shared/error-codes.js';
import { GatewayError, UpstreamClientError, UpstreamError } from '../../shared/errors.js';

interface OpenAIErrorBody {
  error?: { message?: unknown; type?: unknown; code?: unknown; param?: unknown } | string;
  message?: unknown;
}

const CLIENT_STATUSES = new Set([400, 401, 403, 404, 409, 413, 415, 422, 429]);

/** Upstream status + body → our error. Client errors keep their status and the provider's words. */
export function mapOpenAIError(
  status: number,
  body: Uint8Array,
  headers: Record<string, string | string[] | undefined>,
  providerName: string,
): GatewayError {
  const text = new TextDecoder().decode(body);
  let parsed: OpenAIErrorBody | undefined;
  try {
    parsed = JSON.parse(text) as OpenAIErrorBody;
  } catch {
    parsed = undefined;
  }
  const inner = typeof parsed?.error === 'object' && parsed.error !== null ? parsed.error : undefined;
  const upstreamMessage =
    (typeof inner?.message === 'string' && inner.message) ||
    (typeof parsed?.error === 'string' && parsed.error) ||
    (typeof parsed?.message === 'string' && parsed.message) ||
    text.slice(0, 300).trim() ||
    `HTTP ${status}`;
  const message = `${providerName}: ${upstreamMessage}`;
  const code = passThroughCode(typeof inner?.code === 'string' ? inner.code : null);
  const type = typeof inner?.type === 'string' ? inner.type : null;
  const param = typeof inner?.param === 'string' ? inner.param : null;
  const retryAfter = headerValue(headers['retry-after']);
  if (status === 429) {
    return new UpstreamClientError(
      429,
      'rate_limit_error',
      code ?? 'upstream_rate_limited',
      message,
      null,
      retryAfter ? { 'retry-after': retryAfter } : undefined,
    );
  }
  if (CLIENT_STATUSES.has(status)) {
    return new UpstreamClientError(
      status,
      type ?? 'invalid_request_error',
      code ?? `upstream_${status}`,
      message,
      param,
    );
  }
  if (status === 503 || status === 529)
    return new UpstreamError(503, code ?? 'upstream_unavailable', message, {
      headers: retryAfter ? { 'retry-after': retryAfter } : undefined,
    });
  if (status === 504 || status === 408) return new UpstreamError(504, 'upstream_timeout', message);
  return new UpstreamError(502, code ?? 'upstream_error', message);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

import type { AnyErrorCode, CodeOfType, CodeSentAs, PassThroughCode, UpstreamStatusCode } from './error-codes.js';

/**
 * One error hierarchy for the whole service. Every failure that reaches a client is a
 * GatewayError (or is converted into one by the error handler) and is rendered once, as the
 * OpenAI envelope: {"error": {"message", "type", "code", "param"}}. Each class takes only the codes
 * `error-codes.ts` declares for its status and type.
 */
export interface ErrorEnvelope {
  error: { message: string; type: string; code: string | null; param: string | null };
}

export class GatewayError extends Error {
  readonly status: number;
  readonly type: string;
  readonly code: AnyErrorCode;
  readonly param: string | null;
  /** Extra response headers (Retry-After, x-ratelimit-*). */
  readonly headers: Record<string, string> | undefined;

  constructor(
    status: number,
    type: string,
    code: AnyErrorCode,
    message: string,
    options: { param?: string | null; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.type = type;
    this.code = code;
    this.param = options.param ?? null;
    this.headers = options.headers;
  }

  toEnvelope(): ErrorEnvelope {
    return { error: { message: this.message, type: this.type, code: this.code, param: this.param } };
  }
}

export class InvalidRequestError extends GatewayError {
  constructor(
    message: string,
    param: string | null = null,
    code: CodeSentAs<400, 'invalid_request_error'> = 'invalid_request_error',
  ) {
    super(400, 'invalid_request_error', code, message, { param });
  }
}

export class AuthenticationError extends GatewayError {
  constructor(
    message = 'Invalid API key provided.',
    code: CodeSentAs<401, 'authentication_error'> = 'invalid_api_key',
  ) {
    super(401, 'authentication_error', code, message);
  }
}

export class InsufficientCreditsError extends GatewayError {
  constructor(message = 'Your credit balance is too low for this request.') {
    super(402, 'insufficient_credits', 'insufficient_credits', message);
  }
}

export class PermissionDeniedError extends GatewayError {
  constructor(message: string, code: CodeSentAs<403, 'permission_error'>, param: string | null = null) {
    super(403, 'permission_error', code, message, { param });
  }
}

export class NotFoundError extends GatewayError {
  constructor(message: string, code: CodeSentAs<404, 'not_found_error'>, param: string | null = null) {
    super(404, 'not_found_error', code, message, { param });
  }
}

export class ConflictError extends GatewayError {
  constructor(message: string, code: CodeSentAs<409, 'conflict_error'>) {
    super(409, 'conflict_error', code, message);
  }
}

export class PayloadTooLargeError extends GatewayError {
  constructor(limitBytes: number) {
    super(
      413,
      'invalid_request_error',
      'payload_too_large',
      `Request body is larger than the limit of ${limitBytes} bytes.`,
    );
  }
}

export class RateLimitError extends GatewayError {
  constructor(message: string, code: CodeSentAs<429, 'rate_limit_error'>, headers: Record<string, string>) {
    super(429, 'rate_limit_error', code, message, { headers });
  }
}

interface UpstreamErrorOptions {
  headers?: Record<string, string>;
  cause?: unknown;
}

/** The upstream provider failed (after fallbacks): 502 bad gateway, 503 unavailable, 504 timeout. */
export class UpstreamError extends GatewayError {
  declare readonly code: CodeOfType<'upstream_error'> | PassThroughCode;
  // Our own codes are checked against the status they are declared with; a provider's is not ours to check.
  constructor(
    status: 502,
    code: CodeSentAs<502, 'upstream_error'> | PassThroughCode,
    message: string,
    options?: UpstreamErrorOptions,
  );
  constructor(
    status: 503,
    code: CodeSentAs<503, 'upstream_error'> | PassThroughCode,
    message: string,
    options?: UpstreamErrorOptions,
  );
  constructor(
    status: 504,
    code: CodeSentAs<504, 'upstream_error'> | PassThroughCode,
    message: string,
    options?: UpstreamErrorOptions,
  );
  constructor(status: 502 | 503 | 504, code: PassThroughCode, message: string, options?: UpstreamErrorOptions);
  constructor(
    status: 502 | 503 | 504,
    code: CodeOfType<'upstream_error'> | PassThroughCode,
    message: string,
    options: UpstreamErrorOptions = {},
  ) {
    super(status, 'upstream_error', code, message, options);
  }
}

/**
 * An error the upstream returned that belongs to the client (400, 401, 403, 404, 413, 422, 429):
 * passed through with the upstream's status, type and message, so fallbacks can tell it apart.
 */
export class UpstreamClientError extends GatewayError {
  readonly upstreamStatus: number;
  constructor(
    status: number,
    type: string,
    code: CodeSentAs<429, 'rate_limit_error'> | PassThroughCode | UpstreamStatusCode,
    message: string,
    param: string | null,
    headers?: Record<string, string>,
  ) {
    super(status, type, code, message, { param, headers });
    this.upstreamStatus = status;
  }
}

export class InternalError extends GatewayError {
  constructor(message = 'The gateway hit an internal error. It has been logged.', cause?: unknown) {
    super(500, 'server_error', 'internal_error', message, { cause });
  }
}

/**
 * One error hierarchy for the whole service. Every failure that reaches a client is a
 * GatewayError (or is converted into one by the error handler) and is rendered once, as the
 * OpenAI envelope: {"error": {"message", "type", "code", "param"}}.
 */
export interface ErrorEnvelope {
  error: { message: string; type: string; code: string | null; param: string | null };
}

export class GatewayError extends Error {
  readonly status: number;
  readonly type: string;
  readonly code: string;
  readonly param: string | null;
  /** Extra response headers (Retry-After, x-ratelimit-*). */
  readonly headers: Record<string, string> | undefined;

  constructor(
    status: number,
    type: string,
    code: string,
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
  constructor(message: string, param: string | null = null, code = 'invalid_request_error') {
    super(400, 'invalid_request_error', code, message, { param });
  }
}

export class AuthenticationError extends GatewayError {
  constructor(message = 'Invalid API key provided.', code = 'invalid_api_key') {
    super(401, 'authentication_error', code, message);
  }
}

export class InsufficientCreditsError extends GatewayError {
  constructor(message = 'Your credit balance is too low for this request.') {
    super(402, 'insufficient_credits', 'insufficient_credits', message);
  }
}

export class PermissionDeniedError extends GatewayError {
  constructor(message: string, code: string, param: string | null = null) {
    super(403, 'permission_error', code, message, { param });
  }
}

export class NotFoundError extends GatewayError {
  constructor(message: string, code = 'not_found', param: string | null = null) {
    super(404, 'not_found_error', code, message, { param });
  }
}

export class ConflictError extends GatewayError {
  constructor(message: string, code = 'conflict') {
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
  constructor(message: string, code: string, headers: Record<string, string>) {
    super(429, 'rate_limit_error', code, message, { headers });
  }
}

/** The upstream provider failed (after fallbacks): 502 bad gateway, 503 unavailable, 504 timeout. */
export class UpstreamError extends GatewayError {
  constructor(
    status: 502 | 503 | 504,
    code: string,
    message: string,
    options: { headers?: Record<string, string>; cause?: unknown } = {},
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
    code: string,
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

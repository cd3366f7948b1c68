/**
 * Every error code the gateway chooses, declared once: the HTTP status and OpenAI `type` it is sent
 * with, and what it means. The error classes in `errors.ts` accept only codes declared here for
 * their status and type (so a typo, or a code sent with the wrong status, fails the typecheck);
 * codes we do not choose — a provider's or a library's, relayed as received — must be marked with
 * `passThroughCode`. `docs/errors.md` is checked against this table by `error-codes.test.ts`.
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'insufficient_credits'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'server_error'
  | 'service_unavailable'
  | 'upstream_error';

/** How a code is sent. `varies`: it relays the status and type of the answer it stands in for. */
interface ErrorForm {
  status: number | 'varies';
  type: ErrorType | 'varies';
}

export interface ErrorCodeSpec extends ErrorForm {
  meaning: string;
  /** A second status the same code is sent with, and when (kept as the API has always sent it). */
  alsoSentAs?: ErrorForm & { when: string };
}

const BAD_REQUEST = { status: 400, type: 'invalid_request_error' } as const;
const UNAUTHORIZED = { status: 401, type: 'authentication_error' } as const;
const FORBIDDEN = { status: 403, type: 'permission_error' } as const;
const NOT_FOUND = { status: 404, type: 'not_found_error' } as const;
const CONFLICT = { status: 409, type: 'conflict_error' } as const;
const TOO_MANY = { status: 429, type: 'rate_limit_error' } as const;
const BAD_GATEWAY = { status: 502, type: 'upstream_error' } as const;

export const ERROR_CODES = {
  // 400: the request itself is wrong; `param` names the field.
  invalid_request_error: { ...BAD_REQUEST, meaning: 'the request is invalid; the message says why' },
  invalid_value: { ...BAD_REQUEST, meaning: 'a field has a value outside what it accepts' },
  invalid_type: { ...BAD_REQUEST, meaning: 'a field has the wrong JSON type' },
  missing_required_parameter: { ...BAD_REQUEST, meaning: 'a required field is absent' },
  empty_array: { ...BAD_REQUEST, meaning: 'an array that needs at least one item is empty' },
  unknown_parameter: { ...BAD_REQUEST, meaning: 'the body has a field this endpoint does not know' },
  unsupported_parameter: { ...BAD_REQUEST, meaning: 'a known field the chosen model or provider cannot honour' },
  unsupported_tool_type: {
    ...BAD_REQUEST,
    meaning:
      'a tool type the gateway cannot translate (custom tools, built-in Responses tools, Anthropic server tools)',
  },
  model_not_embedding: {
    ...BAD_REQUEST,
    meaning: '`/v1/embeddings` with a model whose output modalities lack `embeddings`',
  },
  model_not_chat: {
    ...BAD_REQUEST,
    meaning: '`/v1/chat/completions` with a model that only creates embeddings (output modalities without `text`)',
  },
  invalid_json: { ...BAD_REQUEST, meaning: 'the body is empty or not valid JSON' },
  invalid_request: { ...BAD_REQUEST, meaning: 'the web framework refused the request without a code of its own' },
  unsupported_content: { ...BAD_REQUEST, meaning: 'a message content part the provider cannot take (e.g. audio)' },
  unsupported_image_url: {
    ...BAD_REQUEST,
    meaning: 'an image given as a link to a provider that takes only data URLs',
  },
  search_unsupported: { ...BAD_REQUEST, meaning: '`enable_search` on a provider without web search' },
  no_endpoint_matches: { ...BAD_REQUEST, meaning: 'no endpoint of the requested models fits the provider preferences' },
  duplicate_priority: { ...BAD_REQUEST, meaning: "two of a key's default models share a priority" },
  missing_default_models: { ...BAD_REQUEST, meaning: 'a key in `manual` routing mode without default models' },
  template_not_found: { ...BAD_REQUEST, meaning: 'a key names a routing template that does not exist' },
  template_unavailable: { ...BAD_REQUEST, meaning: 'none of a routing template’s models is served' },
  invalid_date: { ...BAD_REQUEST, meaning: 'a date parameter is not a YYYY-MM-DD calendar date' },
  invalid_date_range: { ...BAD_REQUEST, meaning: '`start_date` is after `end_date`' },
  date_range_too_long: { ...BAD_REQUEST, meaning: 'a usage query spans more days than allowed' },
  invalid_amount: { ...BAD_REQUEST, meaning: 'a top-up amount is not positive or has too many decimals' },
  amount_out_of_range: { ...BAD_REQUEST, meaning: 'a top-up amount is outside the configured minimum and maximum' },
  balance_limit_exceeded: {
    ...BAD_REQUEST,
    meaning: 'a grant or a checkout would take a balance past the most one account may hold (1,000,000 USD)',
  },
  invalid_currency: { ...BAD_REQUEST, meaning: 'a top-up currency the billing config does not offer' },
  invalid_signature: {
    ...BAD_REQUEST,
    meaning: 'a Stripe webhook without a valid `Stripe-Signature`',
    alsoSentAs: { ...FORBIDDEN, when: 'a signed document link whose signature does not match' },
  },
  weak_password: {
    ...BAD_REQUEST,
    meaning: 'a new password shorter than 10 characters, or one of the most common passwords',
  },
  invalid_invitation: {
    ...BAD_REQUEST,
    meaning: '`auth.sign_up: invite` and the sign-up has no invitation, or an unknown, used or expired one',
  },
  json_too_deep: {
    ...BAD_REQUEST,
    meaning: 'the JSON body nests arrays and objects deeper than `server.max_json_depth` (64 by default)',
  },
  invalid_url: { ...BAD_REQUEST, meaning: 'the URL has a malformed percent-encoding' },
  bad_request: { ...BAD_REQUEST, meaning: 'the HTTP request itself is malformed (headers, framing)' },
  request_timeout: {
    status: 408,
    type: 'invalid_request_error',
    meaning: 'the request’s headers and body did not arrive within `server.request_timeout_ms`',
  },
  url_too_long: {
    status: 414,
    type: 'invalid_request_error',
    meaning: 'a path segment is longer than the router accepts',
  },
  headers_too_large: {
    status: 431,
    type: 'invalid_request_error',
    meaning: 'the request headers are larger than the server accepts',
  },
  invalid_password: {
    ...BAD_REQUEST,
    meaning: 'the current password given to change the password or delete the account is wrong',
  },
  invalid_token: { ...BAD_REQUEST, meaning: 'a password-reset token that is unknown, expired or already used' },
  payload_too_large: {
    status: 413,
    type: 'invalid_request_error',
    meaning: 'the body is above `server.body_limit_bytes` (10 MB default)',
  },
  unsupported_media_type: {
    status: 415,
    type: 'invalid_request_error',
    meaning: 'the body was not sent as `application/json`',
  },
  // 401: who is calling is unknown.
  missing_api_key: { ...UNAUTHORIZED, meaning: 'no API key in `Authorization: Bearer …`' },
  invalid_api_key: { ...UNAUTHORIZED, meaning: 'an unknown or revoked API key (the two are indistinguishable)' },
  not_signed_in: { ...UNAUTHORIZED, meaning: 'an account route without a valid session cookie' },
  invalid_metrics_token: {
    ...UNAUTHORIZED,
    meaning: '`/metrics` without the bearer token set in `metrics.bearer_token`',
  },
  auth_error: {
    status: 'varies',
    type: 'varies',
    meaning: 'the sign-in service refused without a code of its own; status as it answered',
  },
  // 402 and 403: the caller may not do this.
  insufficient_credits: {
    status: 402,
    type: 'insufficient_credits',
    meaning: 'the balance cannot cover the request’s maximum cost',
  },
  key_disabled: { ...FORBIDDEN, meaning: 'the API key is disabled' },
  key_expired: { ...FORBIDDEN, meaning: 'the API key is past its expiry' },
  model_not_allowed: {
    ...FORBIDDEN,
    meaning: 'the API key may not use the model, or none of its default models is allowed',
    alsoSentAs: { ...BAD_REQUEST, when: "a key's default model outside its own `allowed_models`" },
  },
  quota_exceeded: { ...FORBIDDEN, meaning: "the key's `monthly_quota` (calendar month, UTC) is used up" },
  credit_limit_exceeded: { ...FORBIDDEN, meaning: "the key's lifetime `credit_limit` is reached" },
  link_expired: { ...FORBIDDEN, meaning: 'a signed document link past its expiry' },
  invalid_origin: {
    ...FORBIDDEN,
    meaning: 'a cookie-authenticated write from a browser origin the gateway does not trust (CSRF)',
  },
  sign_up_closed: { ...FORBIDDEN, meaning: '`auth.sign_up: closed`: accounts are created by an administrator' },
  admin_required: {
    ...FORBIDDEN,
    meaning: 'an `/api-account/admin/*` route called by an account without the `admin` role',
  },
  // 404: no such thing (also another user's thing).
  model_not_found: {
    ...NOT_FOUND,
    meaning: 'the requested model is not served by any configured provider',
    alsoSentAs: { ...BAD_REQUEST, when: "a model named in a body field (a key's default models, `models[]`)" },
  },
  unknown_url: { ...NOT_FOUND, meaning: 'no route for this method and path' },
  api_key_not_found: { ...NOT_FOUND, meaning: 'no API key with this id for this user' },
  provider_not_found: { ...NOT_FOUND, meaning: 'no provider with this id serves a model' },
  order_not_found: { ...NOT_FOUND, meaning: 'no top-up order with this id for this user' },
  alert_not_found: { ...NOT_FOUND, meaning: 'no balance alert is set for this user' },
  request_not_found: { ...NOT_FOUND, meaning: 'no request with this id in this account’s activity' },
  document_not_found: { ...NOT_FOUND, meaning: 'no invoice or receipt behind a document link' },
  previous_response_not_found: {
    ...NOT_FOUND,
    meaning: '`previous_response_id` names no stored response of this user',
  },
  response_not_found: { ...NOT_FOUND, meaning: 'no stored response with this id for this user' },
  session_not_found: { ...NOT_FOUND, meaning: 'no sandbox checkout session with this id' },
  user_not_found: { ...NOT_FOUND, meaning: 'an admin route names no account with this id' },
  user_session_not_found: { ...NOT_FOUND, meaning: 'no sign-in session with this id for this user' },
  invitation_not_found: { ...NOT_FOUND, meaning: 'no unused invitation with this id' },
  // 409: the state does not allow it.
  user_exists: { ...CONFLICT, meaning: 'a user with this email already exists' },
  order_not_pending: { ...CONFLICT, meaning: 'only a pending order can be canceled' },
  order_not_paid: { ...CONFLICT, meaning: 'documents exist only for paid orders' },
  order_not_refundable: { ...CONFLICT, meaning: 'an admin refund of an order that is not paid' },
  last_admin: { ...CONFLICT, meaning: 'the change would leave the installation without an active administrator' },
  // 429: too much, try later (with Retry-After and x-ratelimit-* headers).
  requests_per_minute_exceeded: { ...TOO_MANY, meaning: "the key's requests-per-minute limit is reached" },
  tokens_per_minute_exceeded: { ...TOO_MANY, meaning: "the key's tokens-per-minute limit is reached" },
  upstream_rate_limited: {
    ...TOO_MANY,
    meaning: 'a provider answered 429 without a code of its own (after fallbacks)',
  },
  too_many_sign_in_attempts: {
    ...TOO_MANY,
    meaning: 'too many failed sign-ins for this account or from this client address; `Retry-After` says when',
  },
  too_many_password_resets: {
    ...TOO_MANY,
    meaning: 'too many password-reset requests for this email or from this client address; `Retry-After` says when',
  },
  // 500 and 503 from the gateway itself.
  internal_error: { status: 500, type: 'server_error', meaning: 'an unexpected failure; the details are logged' },
  limits_unavailable: {
    status: 503,
    type: 'service_unavailable',
    meaning: 'Redis is down and `limits.redis_failure_mode` is `closed`',
  },
  password_reset_unavailable: {
    status: 503,
    type: 'service_unavailable',
    meaning: 'password reset asked of a gateway that has no mailer (a test or embedded setup)',
  },
  accounts_unavailable: {
    status: 503,
    type: 'service_unavailable',
    meaning:
      "accounts' code (better-auth, loaded on first use) could not be loaded; the log has the cause, the next request tries again",
  },
  not_ready: {
    status: 503,
    type: 'service_unavailable',
    meaning: '`/health/ready`: the store, its migrations or Redis is not usable; `checks` names which',
  },
  payments_not_configured: {
    status: 503,
    type: 'service_unavailable',
    meaning: 'create-checkout with no payment provider (`STRIPE_SECRET_KEY` or `billing.payment_provider: sandbox`)',
  },
  database_unavailable: {
    status: 503,
    type: 'service_unavailable',
    meaning: 'the database did not answer within `database.connect_timeout_ms` / `statement_timeout_ms`',
  },
  payment_provider_unavailable: {
    status: 503,
    type: 'service_unavailable',
    meaning: 'the payment provider could not be reached to cancel a checkout; the order is unchanged',
  },
  // 502, 503, 504: the providers failed.
  upstream_error: { ...BAD_GATEWAY, meaning: 'the provider failed without a code of its own' },
  upstream_unreachable: { ...BAD_GATEWAY, meaning: 'the provider’s host refused or does not resolve' },
  upstream_connection_error: { ...BAD_GATEWAY, meaning: 'the connection to the provider broke' },
  upstream_bad_response: {
    ...BAD_GATEWAY,
    meaning: 'the provider answered something that is not its documented shape',
  },
  upstream_stream_interrupted: {
    ...BAD_GATEWAY,
    meaning: 'the provider closed the stream before the answer was complete',
  },
  upstream_stream_error: { ...BAD_GATEWAY, meaning: 'the provider sent an error in the middle of a stream' },
  provider_misconfigured: { ...BAD_GATEWAY, meaning: 'a provider’s credentials in the config are incomplete' },
  no_provider_available: {
    ...BAD_GATEWAY,
    meaning: 'routing ended with no endpoint tried and no upstream error to report',
  },
  client_closed_request: {
    ...BAD_GATEWAY,
    meaning: 'the client went away; recorded in usage, never seen by the client',
  },
  upstream_unavailable: {
    status: 503,
    type: 'upstream_error',
    meaning: 'the provider is overloaded (503 or 529) without a code of its own',
  },
  endpoints_unavailable: {
    status: 503,
    type: 'upstream_error',
    meaning: 'every endpoint that could serve is held back by its circuit breaker',
  },
  upstream_timeout: { status: 504, type: 'upstream_error', meaning: 'connect, first-byte, idle or total timeout' },
  upstream_auth_failed: {
    ...BAD_GATEWAY,
    meaning: 'the provider refused the gateway’s credentials (its 401 or 403); the detail is only logged',
  },
  client_stalled: {
    ...BAD_GATEWAY,
    meaning: 'a stream’s client stopped reading for `server.stream_write_stall_ms`; recorded in usage, never seen',
  },
} as const satisfies Record<string, ErrorCodeSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

type Spec<C extends ErrorCode> = (typeof ERROR_CODES)[C];

/** The codes declared for this status and type (first or second form). */
export type CodeSentAs<S extends number, T extends ErrorType> = {
  [C in ErrorCode]: Spec<C> extends { status: S; type: T }
    ? C
    : Spec<C> extends { alsoSentAs: { status: S; type: T } }
      ? C
      : never;
}[ErrorCode];

/** Every code of one type, whatever its status (the upstream errors choose theirs at run time). */
export type CodeOfType<T extends ErrorType> = {
  [C in ErrorCode]: Spec<C> extends { type: T } ? C : never;
}[ErrorCode];

declare const passedThrough: unique symbol;
/** A code we relay as we received it (a provider's error kind, a library's error code). */
export type PassThroughCode = string & { readonly [passedThrough]: true };

/** When a provider gives no code of its own for a client error: `upstream_400`, `upstream_422`, … */
export type UpstreamStatusCode = `upstream_${number}`;

/** Any code an error can carry. */
export type AnyErrorCode = ErrorCode | PassThroughCode | UpstreamStatusCode;

/** Marks a code we did not choose; null and undefined stay absent so `??` picks our own fallback. */
export function passThroughCode(code: string): PassThroughCode;
export function passThroughCode(code: string | null | undefined): PassThroughCode | null;
export function passThroughCode(code: string | null | undefined): PassThroughCode | null {
  return code === null || code === undefined ? null : (code as PassThroughCode);
}

/** Every form each declared code is sent with, for the docs check and the class consistency test. */
export function errorCodeForms(): { code: ErrorCode; status: number | 'varies'; type: ErrorType | 'varies' }[] {
  return (Object.keys(ERROR_CODES) as ErrorCode[]).flatMap((code) => {
    const spec: ErrorCodeSpec = ERROR_CODES[code];
    const forms = [{ code, status: spec.status, type: spec.type }];
    if (spec.alsoSentAs) forms.push({ code, status: spec.alsoSentAs.status, type: spec.alsoSentAs.type });
    return forms;
  });
}

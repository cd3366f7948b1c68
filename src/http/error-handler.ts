import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  GatewayError,
  InternalError,
  InvalidRequestError,
  NotFoundError,
  PayloadTooLargeError,
} from '../shared/errors.js';
import { passThroughCode } from '../shared/error-codes.js';
import { schemaErrorToRequestError } from './schema-error.js';
import { isDatabaseUnavailable, isUnstorableText } from '../store/database-errors.js';

/** The database is down or too slow: a clear 503 the client may retry, never a 500. */
export class DatabaseUnavailableError extends GatewayError {
  constructor(cause: unknown) {
    super(
      503,
      'service_unavailable',
      'database_unavailable',
      'The gateway cannot reach its database right now; try again shortly.',
      { headers: { 'retry-after': '1' }, cause },
    );
  }
}

/** Any thrown value → the GatewayError the client will see. Pure, so it is tested on its own. */
export function toGatewayError(error: unknown, bodyLimitBytes: number): GatewayError {
  if (error instanceof GatewayError) return error;
  const fastifyError = error as FastifyError & { validationContext?: 'body' | 'querystring' | 'params' | 'headers' };
  if (fastifyError?.validation)
    return schemaErrorToRequestError(fastifyError.validation as never, fastifyError.validationContext ?? 'body');
  switch (fastifyError?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PayloadTooLargeError(bodyLimitBytes);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new InvalidRequestError(
        'We could not parse the JSON body of your request. Send valid JSON with Content-Type: application/json.',
        null,
        'invalid_json',
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new InvalidRequestError('The request body is empty; send a JSON object.', null, 'invalid_json');
    case 'FST_ERR_BAD_URL':
      return new InvalidRequestError(
        'The URL is not valid: a percent-encoded part does not decode.',
        null,
        'invalid_url',
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new GatewayError(414, 'invalid_request_error', 'url_too_long', 'A part of the URL is too long.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new GatewayError(
        415,
        'invalid_request_error',
        'unsupported_media_type',
        'Unsupported Content-Type: send the body as application/json.',
      );
  }
  if (isDatabaseUnavailable(error)) return new DatabaseUnavailableError(error);
  if (isUnstorableText(error)) {
    return new InvalidRequestError(
      'The request contains a character that cannot be stored or looked up (such as a NUL byte).',
      null,
      'invalid_value',
    );
  }
  // decodeURIComponent on a malformed escape anywhere in request handling is the client's URL.
  if (error instanceof URIError) {
    return new InvalidRequestError(
      'The URL is not valid: a percent-encoded part does not decode.',
      null,
      'invalid_url',
    );
  }
  if (error instanceof SyntaxError) {
    return new InvalidRequestError(
      'We could not parse the JSON body of your request. Send valid JSON with Content-Type: application/json.',
      null,
      'invalid_json',
    );
  }
  const status = fastifyError?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new GatewayError(
      status,
      'invalid_request_error',
      passThroughCode(fastifyError.code?.toLowerCase()) ?? 'invalid_request',
      fastifyError.message,
    );
  }
  return new InternalError(undefined, error);
}

/** One place renders every error as the OpenAI envelope. */
export function registerErrorHandling(app: FastifyInstance, bodyLimitBytes: number): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const gatewayError = toGatewayError(error, bodyLimitBytes);
    if (gatewayError instanceof DatabaseUnavailableError) {
      request.log.warn({ err: error }, 'database unavailable');
    } else if (gatewayError.status >= 500 && !(error instanceof GatewayError)) {
      request.log.error({ err: error }, 'unhandled error');
    } else if (gatewayError.status >= 500) {
      request.log.warn({ code: gatewayError.code, message: gatewayError.message }, 'upstream failure');
    }
    if (reply.sent || reply.raw.headersSent) return;
    if (gatewayError.headers) reply.headers(gatewayError.headers);
    reply.status(gatewayError.status).type('application/json').send(gatewayError.toEnvelope());
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const quoted = path.length > 200 ? `${path.slice(0, 200)}…` : path;
    const error = new NotFoundError(`Unknown endpoint: ${request.method} ${quoted}.`, 'unknown_url');
    reply.status(404).send(error.toEnvelope());
  });
}

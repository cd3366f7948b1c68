import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayError } from '../../shared/errors.js';

/** Our error types → Anthropic's error types. */
function anthropicType(error: GatewayError): string {
  if (error.status === 413) return 'request_too_large';
  if (error.status === 402) return 'billing_error';
  switch (error.type) {
    case 'invalid_request_error':
    case 'authentication_error':
    case 'permission_error':
    case 'not_found_error':
    case 'rate_limit_error':
      return error.type;
  }
  if (error.status === 503 || error.status === 529) return 'overloaded_error';
  if (error.status === 404) return 'not_found_error';
  if (error.status === 429) return 'rate_limit_error';
  if (error.status < 500) return 'invalid_request_error';
  return 'api_error';
}

/** Anthropic's error body: {"type":"error","error":{"type","message"}}. */
export function anthropicErrorBody(error: GatewayError): { type: 'error'; error: { type: string; message: string } } {
  return { type: 'error', error: { type: anthropicType(error), message: error.message } };
}

/** A route error handler that answers in Anthropic's envelope (same status and headers as ours). */
export function anthropicErrorHandler(toGatewayError: (error: unknown) => GatewayError) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const gatewayError = toGatewayError(error);
    if (gatewayError.status >= 500)
      request.log.warn({ code: gatewayError.code, message: gatewayError.message }, 'messages failure');
    if (reply.sent || reply.raw.headersSent) return;
    if (gatewayError.headers) reply.headers(gatewayError.headers);
    reply.status(gatewayError.status).type('application/json').send(anthropicErrorBody(gatewayError));
  };
}

import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayError } from '../../shared/errors.js';

/** HTTP status → Google's canonical status name. */
function googleStatus(status: number): string {
  switch (status) {
    case 400:
    case 413:
    case 422:
      return 'INVALID_ARGUMENT';
    case 401:
      return 'UNAUTHENTICATED';
    case 402:
    case 403:
      return 'PERMISSION_DENIED';
    case 404:
      return 'NOT_FOUND';
    case 408:
    case 504:
      return 'DEADLINE_EXCEEDED';
    case 409:
      return 'ABORTED';
    case 429:
      return 'RESOURCE_EXHAUSTED';
    case 503:
      return 'UNAVAILABLE';
    default:
      return status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION';
  }
}

/** Gemini's error body: {"error":{"code","message","status"}}. */
export function geminiErrorBody(error: GatewayError): { error: { code: number; message: string; status: string } } {
  return { error: { code: error.status, message: error.message, status: googleStatus(error.status) } };
}

/** A route error handler that answers in Gemini's envelope (same status and headers as ours). */
export function geminiErrorHandler(toGatewayError: (error: unknown) => GatewayError) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const gatewayError = toGatewayError(error);
    if (gatewayError.status >= 500)
      request.log.warn({ code: gatewayError.code, message: gatewayError.message }, 'gemini api failure');
    if (reply.sent || reply.raw.headersSent) return;
    if (gatewayError.headers) reply.headers(gatewayError.headers);
    reply.status(gatewayError.status).type('application/json').send(geminiErrorBody(gatewayError));
  };
}

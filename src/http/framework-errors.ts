import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, InvalidRequestError } from '../shared/errors.js';
import { toGatewayError } from './error-handler.js';

/*
 * Errors raised before a request reaches a route, by the router (a malformed percent-encoding, a
 * path segment too long) or by Node's HTTP parser (headers too large, a request that did not
 * arrive within server.request_timeout_ms), answered in the same envelope as every other error
 * instead of Fastify's or Node's own bodies.
 */

/** Fastify's `frameworkErrors` option: router errors, rendered like any thrown error. */
export function renderFrameworkError(bodyLimitBytes: number) {
  return (error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void => {
    const gatewayError = toGatewayError(error, bodyLimitBytes);
    reply.status(gatewayError.status).type('application/json').send(gatewayError.toEnvelope());
  };
}

function clientErrorOf(code: string | undefined, requestTimeoutMs: number): GatewayError {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new GatewayError(
      408,
      'invalid_request_error',
      'request_timeout',
      `The request did not arrive within ${requestTimeoutMs} ms (server.request_timeout_ms).`,
    );
  if (code === 'HPE_HEADER_OVERFLOW')
    return new GatewayError(
      431,
      'invalid_request_error',
      'headers_too_large',
      'The request headers are larger than the server accepts.',
    );
  return new InvalidRequestError('The HTTP request is malformed.', null, 'bad_request');
}

/** Fastify's `clientErrorHandler` option: Node's parser and timeout errors, then the connection closes. */
export function answerClientError(requestTimeoutMs: number) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    if (socket.writable) {
      const gatewayError = clientErrorOf(error.code, requestTimeoutMs);
      const body = JSON.stringify(gatewayError.toEnvelope());
      socket.write(
        `HTTP/1.1 ${gatewayError.status} ${STATUS_CODES[gatewayError.status]}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}

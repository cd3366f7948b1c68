import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply } from 'fastify';
import { UpstreamError, type GatewayError } from '../shared/errors.js';
import type { ChatCompletionChunk } from '../shared/openai-types.js';
import { conformChunk } from './conform-chat-answer.js';

/** The SSE framing of our answers, written once. */
const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;

/**
 * Takes over the reply and starts an SSE answer. The headers are written at once into a corked
 * socket that is uncorked on the next turn of the event loop: when the upstream's first bytes
 * are already here (a fast answer comes whole) they leave in the same socket write as the
 * headers, one write a stream fewer; when they are not, the headers still leave before the
 * first token, as clients expect of a stream.
 */
export function openSseStream(reply: FastifyReply, requestId: string, headers: Record<string, string>): ServerResponse {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, { ...SSE_HEADERS, 'x-request-id': requestId, ...headers });
  const socket = raw.socket;
  if (socket) {
    socket.cork();
    setImmediate(uncork, socket);
  }
  raw.flushHeaders();
  return raw;
}

function uncork(socket: Socket): void {
  socket.uncork();
}

export function sseData(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/**
 * One decoded chat chunk as its SSE event: the decoder's ready JSON when it has it (the
 * upstream's text, renamed, already conforming), else the chunk conformed and serialised.
 */
export function sseChunk(chunk: ChatCompletionChunk, json: string | undefined): string {
  return json === undefined ? sseData(conformChunk(chunk)) : 'data: ' + json + '\n\n';
}

export const SSE_DONE = 'data: [DONE]\n\n';

/** A mid-stream failure: an `error` event carrying the same envelope as a JSON error. */
export function sseError(error: GatewayError): string {
  return `event: error\ndata: ${JSON.stringify(error.toEnvelope())}\n\n`;
}

/** Default of `server.stream_write_stall_ms`. */
const DEFAULT_WRITE_STALL_MS = 30_000;

/**
 * Resolves when the socket can take more (`drained`), when it is gone (`closed`), or, when the
 * client has taken nothing for `stallMs`, closes it and resolves `stalled`: a client that never
 * reads must not hold a connection, an upstream stream and the kernel's buffers forever.
 */
export function waitForDrain(
  response: ServerResponse,
  stallMs: number = DEFAULT_WRITE_STALL_MS,
): Promise<'drained' | 'closed' | 'stalled'> {
  return new Promise((resolve) => {
    const finish = (result: 'drained' | 'closed' | 'stalled') => {
      clearTimeout(timer);
      response.off('drain', onDrain);
      response.off('close', onClose);
      resolve(result);
    };
    const onDrain = () => finish('drained');
    const onClose = () => finish('closed');
    const timer = setTimeout(() => {
      finish('stalled');
      response.destroy();
    }, stallMs);
    response.once('drain', onDrain);
    response.once('close', onClose);
  });
}

/** Recorded for a stream cut because its client stopped reading; the client never sees it. */
export function clientStalled(stallMs = DEFAULT_WRITE_STALL_MS): UpstreamError {
  return new UpstreamError(502, 'client_stalled', `The client read nothing for ${stallMs} ms; the stream was closed.`);
}

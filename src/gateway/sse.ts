import type { ServerResponse } from 'node:http';
import type { GatewayError } from '../shared/errors.js';

/** The SSE framing of our answers, written once. */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;

export function sseData(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

export const SSE_DONE = 'data: [DONE]\n\n';

/** A mid-stream failure: an `error` event carrying the same envelope as a JSON error. */
export function sseError(error: GatewayError): string {
  return `event: error\ndata: ${JSON.stringify(error.toEnvelope())}\n\n`;
}

/** Resolves when the socket can take more, or when it is gone. */
export function waitForDrain(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.once('drain', done);
    response.once('close', done);
  });
}

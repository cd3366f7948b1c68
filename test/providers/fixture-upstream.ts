import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { splitRandomly } from './fixture-replay.js';

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. /v1beta/models/x:streamGenerateContent?alt=sse */
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, any>;
}

export interface FixtureAnswer {
  status?: number;
  contentType?: string;
  headers?: Record<string, string>;
  body: Buffer;
  /** Send the body in random pieces (seeded), each its own write, to exercise reassembly over a real socket. */
  pieces?: number;
}

export interface FixtureUpstream {
  url: string;
  requests: RecordedRequest[];
  /** The answers to the next requests, in order; the last one repeats. */
  answer(...answers: FixtureAnswer[]): void;
  close(): Promise<void>;
}

/**
 * A small fake provider over real HTTP that serves recorded bytes as they are: the provider's
 * own framing, status and content type. Every request is recorded for assertions.
 */
export async function startFixtureUpstream(): Promise<FixtureUpstream> {
  const requests: RecordedRequest[] = [];
  let answers: FixtureAnswer[] = [];
  const server: Server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', async () => {
      const text = Buffer.concat(parts).toString('utf8');
      requests.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: text ? JSON.parse(text) : {},
      });
      const answer = answers.length > 1 ? answers.shift()! : answers[0];
      if (!answer) {
        response.writeHead(500).end('no answer configured');
        return;
      }
      response.writeHead(answer.status ?? 200, {
        'content-type': answer.contentType ?? 'application/json',
        ...answer.headers,
      });
      const pieces = answer.pieces ? splitRandomly(answer.body, answer.pieces) : [answer.body];
      for (const piece of pieces) {
        response.write(piece);
        // Yield so pieces leave as separate writes rather than one coalesced buffer.
        await new Promise((resolve) => setImmediate(resolve));
      }
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer: (...next) => {
      answers = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

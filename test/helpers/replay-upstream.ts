import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and query exactly as received on the wire. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ReplayAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** Written piece by piece (each piece its own write), so decoders see split frames. */
  body: Uint8Array | string | Array<Uint8Array | string>;
  /** Destroy the socket after the body instead of ending the response: a stream cut mid-way. */
  cut?: boolean;
}

export interface ReplayUpstream {
  url: string;
  requests: RecordedRequest[];
  /** The answer to the next requests; a function can inspect the request first. */
  answer(next: ReplayAnswer | ((request: RecordedRequest) => ReplayAnswer)): void;
  close(): Promise<void>;
}

/**
 * A fake provider over real HTTP that records every request and replays fixture bytes as given,
 * so each provider's true framing (binary event stream, SSE, NDJSON) reaches the gateway unchanged.
 */
export async function startReplayUpstream(): Promise<ReplayUpstream> {
  const requests: RecordedRequest[] = [];
  let next: ReplayAnswer | ((request: RecordedRequest) => ReplayAnswer) = { status: 500, body: 'no answer set' };
  const server: Server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const recorded: RecordedRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(parts).toString('utf8'),
      };
      requests.push(recorded);
      const answer = typeof next === 'function' ? next(recorded) : next;
      response.writeHead(answer.status ?? 200, answer.headers ?? {});
      const pieces = Array.isArray(answer.body) ? answer.body : [answer.body];
      writePieces(pieces, response, () => {
        if (answer.cut) response.socket?.destroy();
        else response.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer(value) {
      next = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function writePieces(
  pieces: Array<Uint8Array | string>,
  response: import('node:http').ServerResponse,
  done: () => void,
): void {
  let index = 0;
  const writeNext = () => {
    if (index >= pieces.length) return done();
    const piece = pieces[index++]!;
    response.write(piece, () => setImmediate(writeNext));
  };
  writeNext();
}

/** Splits bytes into pieces of `size` (the last may be shorter). */
export function splitBytes(bytes: Uint8Array, size: number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += size) pieces.push(bytes.subarray(offset, offset + size));
  return pieces;
}

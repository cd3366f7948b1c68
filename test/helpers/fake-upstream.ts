import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { splitRandomly } from './byte-pieces.js';

export interface RecordedRequest {
  method: string;
  /** Path and query exactly as received, e.g. /v1beta/models/x:streamGenerateContent?alt=sse */
  url: string;
  headers: IncomingHttpHeaders;
  /** The body as text, as it came (signatures and hashes are computed over it). */
  body: string;
  /** The body parsed as JSON ({} when empty; the text itself when it is not JSON). */
  json: any;
  /** The client's port: requests on one kept-alive connection share it. */
  remotePort: number | undefined;
}

export interface UpstreamAnswer {
  status?: number;
  /** Response headers; content-type is application/json unless given here. */
  headers?: Record<string, string>;
  /** Written piece by piece (each piece its own write), so decoders see split frames. */
  body: Uint8Array | string | Array<Uint8Array | string>;
  /** Cut a single-piece body at random places with this seed (see splitRandomly). */
  randomSplitSeed?: number;
  /** Destroy the socket after the body instead of ending the response: a stream cut mid-way. */
  cut?: boolean;
  /** Leave the response open after the body (an upstream that does not close): it goes to `held`. */
  hold?: boolean;
}

/** An answer made from the request it answers (an upstream that echoes what it was sent). */
export type AnswerFor = (request: RecordedRequest) => UpstreamAnswer;

export interface FakeUpstream {
  url: string;
  requests: RecordedRequest[];
  /** Responses answered with `hold`, still open until the test ends them (or `close`). */
  held: ServerResponse[];
  /** The answers to the next requests, in order; the last one repeats. */
  answer(...answers: Array<UpstreamAnswer | AnswerFor>): void;
  close(): Promise<void>;
}

/**
 * The tests' fake provider: real HTTP on a free port, every request recorded, recorded fixture
 * bytes replayed as given, so each provider's own framing (binary event stream, SSE, NDJSON),
 * status and headers reach the gateway unchanged. Answers are set in order (`answer`) or made from
 * the request (`AnswerFor`); protocol-fakes.ts routes it by provider. (`src/mock-upstream/` is the
 * other kind: a scripted OpenAI upstream, shipped, for benchmarks and `npm run mock-upstream`.)
 */
export async function startFakeUpstream(): Promise<FakeUpstream> {
  const requests: RecordedRequest[] = [];
  const held: ServerResponse[] = [];
  let answers: Array<UpstreamAnswer | AnswerFor> = [];
  const server: Server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8');
      const recorded: RecordedRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body,
        remotePort: request.socket.remotePort,
        get json() {
          return parsedOrText(body);
        },
      };
      requests.push(recorded);
      const next = answers.length > 1 ? answers.shift()! : answers[0];
      const answer = typeof next === 'function' ? next(recorded) : next;
      if (!answer) {
        response.writeHead(500).end('no answer set');
        return;
      }
      response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
      if (answer.hold) held.push(response);
      writePieces(piecesOf(answer), response, () => {
        if (answer.cut) response.socket?.destroy();
        else if (!answer.hold) response.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    held,
    answer(...next) {
      answers = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parsedOrText(body: string): unknown {
  if (!body) return {};
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

function piecesOf(answer: UpstreamAnswer): Array<Uint8Array | string> {
  if (Array.isArray(answer.body)) return answer.body;
  if (answer.randomSplitSeed === undefined) return [answer.body];
  const bytes = typeof answer.body === 'string' ? Buffer.from(answer.body) : answer.body;
  return splitRandomly(bytes, answer.randomSplitSeed);
}

/** Writes each piece only after the previous one left, so pieces go out as separate writes. */
function writePieces(pieces: Array<Uint8Array | string>, response: ServerResponse, done: () => void): void {
  let index = 0;
  const writeNext = () => {
    if (index >= pieces.length) return done();
    const piece = pieces[index++]!;
    response.write(piece, () => setImmediate(writeNext));
  };
  writeNext();
}

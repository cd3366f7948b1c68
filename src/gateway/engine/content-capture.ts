import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CompletionOutcome } from '../../routing/completion-outcome.js';

/** One body as kept: its first `maxBytes` bytes, how long it was, and whether it was cut. */
interface CappedBody {
  bytes: Buffer;
  totalBytes: number;
  truncated: boolean;
}

/** A request and its answer as the client sent and received them, for a key that keeps content. */
export interface CapturedContent {
  requestId: string;
  userId: string;
  keyId: string;
  /** The request's start: the usage event's created_at, by which the activity page finds it. */
  createdAt: number;
  request: CappedBody;
  response: CappedBody;
  /** The answer's content type (application/json, text/event-stream). */
  responseType: string | null;
}

/** Where kept content goes (metering's request content log): the engine knows only this. */
export interface ContentSink {
  /** The cap per body, in bytes (read once per request). */
  readonly maxBytes: number;
  /** Takes one exchange after its answer ended; it must never throw nor wait. */
  keep(content: CapturedContent): void;
}

/** Collects bytes up to a cap: what is past the cap is counted, never held. */
class CappedCollector {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private total = 0;

  constructor(private readonly maxBytes: number) {}

  push(chunk: unknown, encoding?: unknown): void {
    if (chunk === null || chunk === undefined || typeof chunk === 'function') return;
    const bytes =
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : chunk instanceof Uint8Array
          ? chunk
          : null;
    if (!bytes) return;
    this.total += bytes.length;
    const room = this.maxBytes - this.kept;
    if (room <= 0) return;
    const part = bytes.length <= room ? bytes : bytes.subarray(0, room);
    // A copy: the writer may reuse its buffer once write() returns.
    this.chunks.push(Buffer.from(part));
    this.kept += part.length;
  }

  result(): CappedBody {
    return { bytes: Buffer.concat(this.chunks), totalBytes: this.total, truncated: this.total > this.kept };
  }
}

/**
 * Keeps what the client sent (its parsed body, as JSON) and every byte written back to it, up to
 * the sink's cap each, whatever the surface and however the answer is written (a JSON send, a
 * hijacked stream, the error envelope). The exchange goes to the sink when the connection's
 * answer is over, off the answer's path. Called only for keys with content logging on.
 */
export function captureContent(
  sink: ContentSink,
  request: FastifyRequest,
  reply: FastifyReply,
  outcome: CompletionOutcome,
): void {
  const maxBytes = sink.maxBytes;
  const sent = new CappedCollector(maxBytes);
  sent.push(request.body === undefined ? '' : JSON.stringify(request.body));
  const answer = new CappedCollector(maxBytes);
  const raw = reply.raw;
  const write = raw.write;
  const end = raw.end;
  const writeHead = raw.writeHead;
  let headType: string | null = null;
  // Fastify and a hijacked stream both hand their headers to writeHead, where getHeader cannot see them.
  raw.writeHead = function (this: typeof raw, ...args: unknown[]) {
    const headers = args.find((arg) => typeof arg === 'object' && arg !== null && !Array.isArray(arg));
    const type = headers ? (headers as Record<string, unknown>)['content-type'] : undefined;
    if (typeof type === 'string') headType = type;
    return (writeHead as (...rest: unknown[]) => typeof raw).apply(this, args);
  } as typeof raw.writeHead;
  raw.write = function (this: typeof raw, ...args: unknown[]) {
    answer.push(args[0], args[1]);
    return (write as (...rest: unknown[]) => boolean).apply(this, args);
  } as typeof raw.write;
  raw.end = function (this: typeof raw, ...args: unknown[]) {
    answer.push(args[0], args[1]);
    return (end as (...rest: unknown[]) => typeof raw).apply(this, args);
  } as typeof raw.end;
  raw.once('close', () => {
    const type = raw.getHeader('content-type') ?? headType;
    const userId = outcome.userId;
    const keyId = outcome.keyId;
    if (userId === null || keyId === null) return;
    sink.keep({
      requestId: outcome.requestId,
      userId,
      keyId,
      createdAt: outcome.startedAt,
      request: sent.result(),
      response: answer.result(),
      responseType: typeof type === 'string' ? type : null,
    });
  });
}

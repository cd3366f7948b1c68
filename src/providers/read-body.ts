import type { Readable } from 'node:stream';

/**
 * What a read callback may return: nothing (read on), or a promise (the body is paused until it
 * settles: a write waiting for the client to drain).
 */
type ChunkResult = void | Promise<unknown>;

/** The error an async iterator throws for a body that closed before its end (kept the same here). */
function prematureClose(): Error {
  const error = new Error('Premature close') as Error & { code: string };
  error.code = 'ERR_STREAM_PREMATURE_CLOSE';
  return error;
}

/** Installed once a body is taken: a `destroy()` after the read settled must never throw an unhandled 'error'. */
function ignore(): void {}

/**
 * Reads an upstream body to its end with `data`/`end`/`error`/`close` listeners, handing each
 * read to `onChunk` as it comes. It does what `for await (const bytes of body)` did, with no
 * promise or iterator result per read (2.5–4 µs a one-read stream against ~0.7 µs, stream-cpu):
 * - `onChunk` returning a promise pauses the body until it settles (a client's backpressure);
 *   an upstream error that comes meanwhile is thrown once it settled, as the loop would have.
 * - `onChunk` throwing (or its promise rejecting) stops the read with that error; the body is
 *   left open for the caller's `finally` to destroy, as a loop's `throw` left it.
 * - The body's own error (idle timeout, abort, a socket closed mid-answer) rejects with that
 *   error; a body closed without an end and without an error rejects with a premature close.
 * - A body already ended, errored or destroyed when taken settles at once the same way (an
 *   error emitted before the listeners were there is read from `errored`): never a hang.
 */
export function readBody(body: Readable, onChunk: (bytes: Uint8Array) => ChunkResult): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    body.on('error', ignore);
    let settled = false;
    // A promise from onChunk is being waited on: what the body says meanwhile is held until it settles.
    let waiting = false;
    let held: { error: unknown } | 'end' | null = null;
    const cleanup = () => {
      settled = true;
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
    };
    const fail = (error: unknown) => {
      if (settled) return;
      cleanup();
      reject(error);
    };
    const succeed = () => {
      if (settled) return;
      cleanup();
      resolve();
    };
    const resumeAfter = () => {
      waiting = false;
      if (settled) return;
      if (held !== null) {
        if (held === 'end') succeed();
        else fail(held.error);
        return;
      }
      body.resume();
    };
    const onData = (bytes: Uint8Array) => {
      if (settled || waiting) return;
      let result: ChunkResult;
      try {
        result = onChunk(bytes);
      } catch (error) {
        fail(error);
        return;
      }
      if (result !== undefined && !settled) {
        waiting = true;
        body.pause();
        result.then(resumeAfter, (error: unknown) => {
          waiting = false;
          fail(error);
        });
      }
    };
    const onEnd = () => {
      if (waiting) held ??= 'end';
      else succeed();
    };
    const onError = (error: unknown) => {
      if (waiting) held = { error };
      else fail(error);
    };
    const onClose = () => {
      // 'end' or 'error' came first when there was one; a close alone is a body cut short.
      if (body.readableEnded) return onEnd();
      const error = body.errored ?? prematureClose();
      if (waiting) held ??= { error };
      else fail(error);
    };
    if (body.destroyed || body.readableEnded) {
      if (body.errored) fail(body.errored);
      else if (body.readableEnded) succeed();
      else fail(prematureClose());
      return;
    }
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
    body.on('data', onData);
  });
}

/**
 * How long an upstream body may stay open after the answer's end marker (chat's `[DONE]`,
 * Anthropic's `message_stop`) before the gateway stops reading it. A healthy upstream ends its
 * response with the marker or a packet later (the chunked terminator as its own segment, which
 * Nagle's algorithm may hold until the marker's segment is acknowledged, and a delayed ACK takes
 * 40 ms on Linux, up to 200 ms elsewhere): waiting that long keeps its keep-alive connection for
 * the next request instead of a new TLS handshake. One that keeps the response open holds the
 * client's end at most this long (the end waits for metering's settlement, which waits for the
 * body), where it held it until its idle timeout (60 s by default). A constant, not a setting:
 * nothing a provider is known to do needs more, and a lingering upstream loses nothing by it.
 */
const END_GRACE_MS = 250;

/** Whether bodyAfterEnd dropped the body (its read then settles with that abort). */
export interface EndGrace {
  readonly dropped: boolean;
}

/**
 * Called once the answer's end marker was read: a body that ends within END_GRACE_MS ends as
 * usual; one still open then is destroyed (its connection closed, never reused), so readBody
 * settles, with an abort error, and the caller, whose answer is complete, can finish.
 */
export function bodyAfterEnd(body: Readable, graceMs = END_GRACE_MS): EndGrace {
  const grace = { dropped: false };
  if (body.readableEnded || body.destroyed) return grace;
  const timer = setTimeout(() => {
    if (body.readableEnded || body.destroyed) return;
    grace.dropped = true;
    body.destroy();
  }, graceMs);
  // Only 'close' (a body closes after its end, and the stream paths destroy theirs when done): one
  // listener, no `once` wrappers, 0.4 µs a stream where 'end' and 'close' with `once` cost 1 µs.
  body.on('close', () => clearTimeout(timer));
  return grace;
}

/**
 * bodyAfterEnd for an API with no end marker (Gemini): armed after each read that may be the
 * answer's last, disarmed by the next read. The body is dropped only once END_GRACE_MS passed
 * with nothing read since such a read, so a chunk that follows a finish reason (a usage-only
 * one, or more text from a server that names the reason early) still reaches the client. One
 * timer a stream, refreshed rather than made again.
 */
export class QuietEnd implements EndGrace {
  dropped = false;
  private timer: NodeJS.Timeout | null = null;
  private armed = false;

  constructor(
    private readonly body: Readable,
    private readonly graceMs = END_GRACE_MS,
  ) {}

  arm(): void {
    if (this.body.readableEnded || this.body.destroyed) return;
    this.armed = true;
    // A timer that fired while disarmed, or is still pending, starts over (refresh reactivates it).
    if (this.timer) {
      this.timer.refresh();
      return;
    }
    const timer = setTimeout(() => {
      if (!this.armed || this.body.readableEnded || this.body.destroyed) return;
      this.dropped = true;
      this.body.destroy();
    }, this.graceMs);
    this.timer = timer;
    this.body.on('close', () => clearTimeout(timer));
  }

  /** A read came: the timer stays (no clear and re-create per read), its callback does nothing. */
  disarm(): void {
    this.armed = false;
  }
}

import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, type Dispatcher } from 'undici';
import { QuietEnd, bodyAfterEnd, readBody } from './read-body.js';

/**
 * readBody replaced `for await (const bytes of body)` on the stream paths (streamCompletion,
 * renderNative). Each case is run both ways on a real undici body from a local server: the same
 * bytes, and the same error (class and message) where the body fails.
 */
type Behaviour = (response: ServerResponse) => void;
const behaviours = new Map<string, Behaviour>();
let server: Server;
let origin: string;
const agent = new Agent({ connections: 8 });

const piece = (index: number, size: number) => Buffer.alloc(size, 97 + (index % 26));

beforeAll(async () => {
  // Pieces that each leave the server as a write of their own (and arrive as reads of their own).
  behaviours.set('large', (response) => {
    response.writeHead(200);
    let index = 0;
    const next = () => {
      if (index === 40) return response.end();
      response.write(piece(index, 32 * 1024));
      index++;
      setImmediate(next);
    };
    next();
  });
  behaviours.set('one', (response) => {
    response.writeHead(200, { 'content-length': '5' });
    response.end('hello');
  });
  // The upstream closes the connection mid-answer (chunked, so the body is never complete).
  behaviours.set('early-close', (response) => {
    response.writeHead(200);
    response.write('data: partial');
    setTimeout(() => response.socket?.destroy(), 30);
  });
  // The upstream sends a little, then nothing: the idle (body) timeout fires.
  behaviours.set('stall', (response) => {
    response.writeHead(200);
    response.write('data: first');
  });
  // The end marker, then the response's end a turn later (its own HTTP chunk).
  behaviours.set('end-later', (response) => {
    response.writeHead(200);
    response.write('data: [DONE]\n\n', () => setImmediate(() => response.end()));
  });
  server = createServer((request, response) => behaviours.get(request.url!.slice(1))!(response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await agent.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function open(path: string, options: Partial<Dispatcher.RequestOptions> = {}) {
  return agent.request({ origin, path: `/${path}`, method: 'GET', bodyTimeout: 5_000, ...options });
}

/** The body read with `for await`, as the stream paths did: bytes, or the error thrown. */
async function readWithLoop(body: Readable): Promise<{ bytes: Buffer } | { error: unknown }> {
  const parts: Buffer[] = [];
  try {
    for await (const bytes of body) parts.push(bytes as Buffer);
    return { bytes: Buffer.concat(parts) };
  } catch (error) {
    return { error };
  } finally {
    if (!body.destroyed) body.destroy();
  }
}

async function readWithListeners(
  body: Readable,
  onChunk?: (bytes: Uint8Array) => void | Promise<unknown>,
): Promise<{ bytes: Buffer; reads: number } | { error: unknown }> {
  const parts: Buffer[] = [];
  try {
    await readBody(body, (bytes) => {
      parts.push(Buffer.from(bytes));
      return onChunk?.(bytes);
    });
    return { bytes: Buffer.concat(parts), reads: parts.length };
  } catch (error) {
    return { error };
  } finally {
    if (!body.destroyed) body.destroy();
  }
}

function describeError(result: { error: unknown } | { bytes: Buffer }): string {
  if (!('error' in result)) return 'no error';
  const error = result.error as Error & { code?: string };
  return `${error.constructor.name} ${error.code ?? ''} ${error.message}`;
}

describe('readBody', () => {
  it('reads a body larger than one read, in order, as the loop did', async () => {
    const expected = Buffer.concat(Array.from({ length: 40 }, (_, index) => piece(index, 32 * 1024)));
    const loop = await readWithLoop((await open('large')).body);
    const listeners = await readWithListeners((await open('large')).body);
    expect('bytes' in loop && loop.bytes.equals(expected)).toBe(true);
    expect('bytes' in listeners && listeners.bytes.equals(expected)).toBe(true);
    expect('reads' in listeners && listeners.reads).toBeGreaterThan(1);
  });

  it('waits for a promise from the callback before the next read (backpressure), losing nothing', async () => {
    const expected = Buffer.concat(Array.from({ length: 40 }, (_, index) => piece(index, 32 * 1024)));
    let pending = 0;
    let overlapped = false;
    const result = await readWithListeners((await open('large')).body, () => {
      if (pending > 0) overlapped = true;
      pending++;
      return new Promise((resolve) => setTimeout(resolve, 1)).then(() => pending--);
    });
    expect(overlapped).toBe(false);
    expect('bytes' in result && result.bytes.equals(expected)).toBe(true);
  });

  it('an upstream that closes mid-answer fails with the error the loop threw', async () => {
    const loop = await readWithLoop((await open('early-close')).body);
    const listeners = await readWithListeners((await open('early-close')).body);
    expect(describeError(loop)).toMatch(/SocketError .*other side closed/);
    expect(describeError(listeners)).toBe(describeError(loop));
  });

  it('a stalled upstream fails with the body timeout, as with the loop', async () => {
    const loop = await readWithLoop((await open('stall', { bodyTimeout: 100 })).body);
    const listeners = await readWithListeners((await open('stall', { bodyTimeout: 100 })).body);
    expect(describeError(loop)).toMatch(/BodyTimeoutError/);
    expect(describeError(listeners)).toBe(describeError(loop));
  });

  it('a stall that comes while a write waits for its drain is thrown once the wait is over', async () => {
    const { body } = await open('stall', { bodyTimeout: 100 });
    const order: string[] = [];
    const result = await readWithListeners(body, () => {
      order.push('read');
      // Longer than the body timeout: undici's idle timer is not held off by a paused body's buffer.
      return new Promise((resolve) => setTimeout(resolve, 300)).then(() => order.push('drained'));
    });
    expect(order).toEqual(['read', 'drained']);
    expect(describeError(result)).toMatch(/BodyTimeoutError/);
  });

  it('an aborted request (the client went away) fails with the abort, as with the loop', async () => {
    const run = async (read: (body: Readable) => Promise<{ error: unknown } | { bytes: Buffer }>) => {
      const controller = new AbortController();
      const { body } = await open('stall', { signal: controller.signal });
      setTimeout(() => controller.abort(new Error('client closed')), 20);
      return read(body);
    };
    const loop = await run(readWithLoop);
    const listeners = await run((body) => readWithListeners(body));
    expect(describeError(loop)).toMatch(/client closed/);
    expect(describeError(listeners)).toBe(describeError(loop));
  });

  it('a callback that throws stops the read with its error; the body can be destroyed after', async () => {
    const { body } = await open('large');
    const stop = new Error('client stalled');
    let reads = 0;
    await expect(
      readBody(body, () => {
        reads++;
        throw stop;
      }),
    ).rejects.toBe(stop);
    expect(reads).toBe(1);
    // Destroyed mid-answer (undici's RequestAbortedError): no unhandled 'error'.
    body.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    expect(body.destroyed).toBe(true);
  });

  it('a rejected promise from the callback stops the read with its error', async () => {
    const { body } = await open('large');
    const stop = new Error('stalled while draining');
    await expect(readBody(body, () => Promise.reject(stop))).rejects.toBe(stop);
    body.destroy();
  });

  it('a body already ended, errored or destroyed settles at once (never a hang)', async () => {
    const ended = Readable.from([Buffer.from('x')]);
    for await (const _ of ended) void _;
    await expect(readBody(ended, () => undefined)).resolves.toBeUndefined();

    const failure = new Error('gone');
    const errored = new Readable({ read() {} });
    errored.on('error', () => undefined);
    errored.destroy(failure);
    await new Promise((resolve) => setImmediate(resolve));
    await expect(readBody(errored, () => undefined)).rejects.toBe(failure);

    const destroyed = new Readable({ read() {} });
    destroyed.destroy();
    await expect(readBody(destroyed, () => undefined)).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('a body closed without an end or an error fails as the loop did (premature close)', async () => {
    const make = () => {
      const body = new Readable({ read() {} });
      body.push('part');
      setTimeout(() => body.destroy(), 10);
      return body;
    };
    const loop = await readWithLoop(make());
    const listeners = await readWithListeners(make());
    expect(describeError(loop)).toMatch(/ERR_STREAM_PREMATURE_CLOSE/);
    expect(describeError(listeners)).toBe(describeError(loop));
  });

  it('reads a one-read body whose bytes arrived before it was taken', async () => {
    const { body } = await open('one');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const result = await readWithListeners(body);
    expect('bytes' in result && result.bytes.toString()).toBe('hello');
  });
});

describe('bodyAfterEnd (after the end marker)', () => {
  it('a body that stays open is dropped after the grace: the read settles, long before the idle timeout', async () => {
    const { body } = await open('stall', { bodyTimeout: 60_000 });
    let grace: ReturnType<typeof bodyAfterEnd> | null = null;
    const read = readBody(body, () => {
      grace ??= bodyAfterEnd(body, 20);
    });
    await expect(read).rejects.toBeDefined();
    expect(grace!.dropped).toBe(true);
    expect(body.destroyed).toBe(true);
  });

  it('a body that ends within the grace ends as usual (not dropped)', async () => {
    const { body } = await open('end-later');
    let grace: ReturnType<typeof bodyAfterEnd> | null = null;
    const parts: string[] = [];
    await readBody(body, (bytes) => {
      parts.push(Buffer.from(bytes).toString());
      grace ??= bodyAfterEnd(body);
    });
    expect(parts.join('')).toBe('data: [DONE]\n\n');
    expect(grace!.dropped).toBe(false);
  });

  it('a body already ended is left alone', async () => {
    const { body } = await open('one');
    await readBody(body, () => undefined);
    expect(bodyAfterEnd(body, 0).dropped).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(body.readableEnded).toBe(true);
  });
});

describe('QuietEnd (Gemini: no end marker)', () => {
  it('armed and then quiet: the body is dropped and the read settles', async () => {
    const body = new PassThrough();
    const quiet = new QuietEnd(body, 10);
    const read = readBody(body, () => quiet.arm());
    body.write('data: {"candidates":[{"finishReason":"STOP"}]}\n\n');
    await expect(read).rejects.toBeDefined();
    expect(quiet.dropped).toBe(true);
  });

  it('disarmed by a read that followed: not dropped, and armed again later it drops (the timer refreshed)', async () => {
    const body = new PassThrough();
    const quiet = new QuietEnd(body, 10);
    const read = readBody(body, () => undefined);
    quiet.arm();
    quiet.disarm();
    // Well past the grace: the timer fired disarmed and did nothing.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(quiet.dropped).toBe(false);
    expect(body.destroyed).toBe(false);
    quiet.arm();
    await expect(read).rejects.toBeDefined();
    expect(quiet.dropped).toBe(true);
  });

  it('a body that ends while armed ends as usual', async () => {
    const body = new PassThrough();
    const quiet = new QuietEnd(body, 60_000);
    const read = readBody(body, () => quiet.arm());
    body.end('data: {}\n\n');
    await read;
    expect(quiet.dropped).toBe(false);
  });
});

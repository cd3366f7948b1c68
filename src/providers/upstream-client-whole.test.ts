import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../config/gateway-config.js';
import { GatewayError } from '../shared/errors.js';
import { UpstreamClient, toUpstreamError } from './upstream-client.js';
import type { UpstreamHttpRequest } from './provider-adapter.js';

/**
 * sendWhole (a dispatch handler gathering the body) replaced `send` + `body.arrayBuffer()` for
 * whole answers. Each case runs both ways against a local server: the same status, headers and
 * bytes, or the same error (class, code, status, message) once mapped by toUpstreamError.
 */
type Behaviour = (response: ServerResponse) => void;
const behaviours = new Map<string, Behaviour>();
let server: Server;
let base: string;
const client = new UpstreamClient();

const piece = (index: number) => Buffer.alloc(16 * 1024, 97 + (index % 26));
const LARGE = Buffer.concat(Array.from({ length: 40 }, (_, index) => piece(index)));

function provider(idleMs = 5_000, firstByteMs = 5_000): ProviderConfig {
  return {
    id: `p-${idleMs}-${firstByteMs}`,
    name: 'Mock AI',
    type: 'openai',
    baseUrl: base,
    maxConnections: 4,
    timeouts: { connectMs: 1_000, firstByteMs, idleMs, totalMs: 30_000 },
  } as unknown as ProviderConfig;
}

beforeAll(async () => {
  behaviours.set('json', (response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'x-multi': ['a', 'b'] });
    response.end('{"ok":true}');
  });
  // Many reads: each piece leaves as its own write.
  behaviours.set('large', (response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    let index = 0;
    const next = () => {
      if (index === 40) return response.end();
      response.write(piece(index++));
      setImmediate(next);
    };
    next();
  });
  behaviours.set('refused', (response) => {
    response.writeHead(429, { 'retry-after': '3', 'content-type': 'application/json' });
    response.end('{"error":{"message":"slow down"}}');
  });
  // A refusal whose body breaks off: read as empty, the status still speaks.
  behaviours.set('refused-cut', (response) => {
    response.writeHead(503, { 'content-length': '100' });
    response.write('{"error":');
    setTimeout(() => response.socket?.destroy(), 20);
  });
  // Half the promised length, then the connection closes.
  behaviours.set('cut', (response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    response.write('{"half":');
    setTimeout(() => response.socket?.destroy(), 20);
  });
  behaviours.set('stall', (response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"half":');
  });
  behaviours.set('silent', () => undefined);
  server = createServer((request, response) => {
    request.resume();
    behaviours.get(request.url!.slice(1))!(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const request = (path: string): UpstreamHttpRequest => ({
  url: `${base}/${path}`,
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: '{"model":"m"}',
  warnings: [],
});

type Seen = { status: number; headers: Record<string, unknown>; bytes: string } | { error: string };

function describeError(error: unknown): string {
  const gateway = error as GatewayError;
  return `${gateway.constructor.name} ${gateway.status} ${gateway.code} ${gateway.message}`;
}

/** The old way: send, then the body's arrayBuffer() (an answer outside 2xx: `.catch` to empty). */
async function viaStream(path: string, config: ProviderConfig, signal: AbortSignal): Promise<Seen> {
  try {
    const response = await client.send(config, request(path), signal);
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    const bytes = ok
      ? await response.body.arrayBuffer()
      : await response.body.arrayBuffer().catch(() => new ArrayBuffer(0));
    return { status: response.statusCode, headers: response.headers, bytes: Buffer.from(bytes).toString() };
  } catch (error) {
    return { error: describeError(error instanceof GatewayError ? error : toMapped(error, config, signal)) };
  }
}

async function viaWhole(path: string, config: ProviderConfig, signal: AbortSignal): Promise<Seen> {
  try {
    const response = await client.sendWhole(config, request(path), signal);
    return { status: response.statusCode, headers: response.headers, bytes: Buffer.from(response.bytes).toString() };
  } catch (error) {
    return { error: describeError(error) };
  }
}

// recordAttempt maps a body error the same way send() maps its own.
const toMapped = (error: unknown, config: ProviderConfig, signal: AbortSignal) =>
  toUpstreamError(error, config, signal);

const stripDate = (seen: Seen) => {
  if ('headers' in seen) {
    const { date: _date, ...rest } = seen.headers;
    void _date;
    return { ...seen, headers: rest };
  }
  return seen;
};

async function both(path: string, config = provider(), abortAfterMs?: number) {
  const run = async (read: typeof viaWhole) => {
    const controller = new AbortController();
    if (abortAfterMs !== undefined) setTimeout(() => controller.abort(), abortAfterMs);
    return stripDate(await read(path, config, controller.signal));
  };
  return { stream: await run(viaStream), whole: await run(viaWhole) };
}

describe('UpstreamClient.sendWhole', () => {
  it('a whole answer: the same status, headers and bytes', async () => {
    const { stream, whole } = await both('json');
    expect(whole).toEqual(stream);
    expect(whole).toMatchObject({ status: 200, bytes: '{"ok":true}', headers: { 'x-multi': ['a', 'b'] } });
  });

  it('a body larger than one read is joined in order', async () => {
    const { stream, whole } = await both('large');
    expect(whole).toEqual(stream);
    expect('bytes' in whole && whole.bytes).toBe(LARGE.toString());
  });

  it('a refusal keeps its status, headers and body', async () => {
    const { stream, whole } = await both('refused');
    expect(whole).toEqual(stream);
    expect(whole).toMatchObject({ status: 429, headers: { 'retry-after': '3' } });
  });

  it('a refusal whose body breaks off is read as empty, as before', async () => {
    const { stream, whole } = await both('refused-cut');
    expect(whole).toEqual(stream);
    expect(whole).toMatchObject({ status: 503, bytes: '' });
  });

  it('an upstream that closes mid-answer is the same error', async () => {
    const { stream, whole } = await both('cut');
    expect('error' in whole && whole.error).toMatch(/^UpstreamError 502 upstream_connection_error/);
    expect(whole).toEqual(stream);
  });

  it('an upstream that stalls mid-answer is cut at the idle timeout, the same 504', async () => {
    const { stream, whole } = await both('stall', provider(150));
    expect('error' in whole && whole.error).toMatch(/^UpstreamError 504 upstream_timeout .*stopped sending data/);
    expect(whole).toEqual(stream);
  });

  it('an upstream that never answers is cut at the first-byte timeout, the same 504', async () => {
    const { stream, whole } = await both('silent', provider(5_000, 150));
    expect('error' in whole && whole.error).toMatch(/^UpstreamError 504 upstream_timeout .*did not start answering/);
    expect(whole).toEqual(stream);
  });

  it('an abort (client gone, total deadline) mid-answer is the same error, and never a hang', async () => {
    const { stream, whole } = await both('stall', provider(), 50);
    expect('error' in whole).toBe(true);
    expect(whole).toEqual(stream);
  });

  it('an abort with a gateway error as its reason rejects with that error', async () => {
    const controller = new AbortController();
    const reason = new GatewayError(504, 'api_error', 'upstream_timeout', 'The request took longer than 1 ms.');
    setTimeout(() => controller.abort(reason), 30);
    await expect(client.sendWhole(provider(), request('silent'), controller.signal)).rejects.toBe(reason);
    const aborted = AbortSignal.abort(reason);
    await expect(client.sendWhole(provider(), request('json'), aborted)).rejects.toBe(reason);
  });
});

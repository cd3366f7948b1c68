import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { CompletionOutcome } from '../../src/routing/completion-outcome.js';
import { startFakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';

/*
 * Issue 16, finding 8: a trickled request body held a connection for 150 s and more, and streams
 * whose clients never read stayed open long past the request deadline with their bytes piled up
 * in kernel buffers. Now the whole request must arrive within server.request_timeout_ms (408 in
 * the envelope, connection closed) and a stream whose client takes nothing for
 * server.stream_write_stall_ms is closed and its upstream released.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(server: string, upstreamBody?: string[]) {
  const upstream = await startFakeUpstream();
  if (upstreamBody) upstream.answer({ headers: { 'content-type': 'text/event-stream' }, body: upstreamBody });
  cleanups.push(() => upstream.close());
  const outcomes: CompletionOutcome[] = [];
  const gateway = await startTestGateway({
    configText: testConfigText(upstream.url, 'routing:\n  request_timeout_ms: 60000\n').replace(
      'server:\n',
      `server:\n${server}`,
    ),
    storeKind: 'postgres',
    deps: { observers: [{ onCompletion: (outcome) => outcomes.push(outcome) }] },
  });
  cleanups.push(() => gateway.close());
  return { upstream, gateway, outcomes };
}

function openSocket(gateway: TestGateway): Promise<Socket> {
  const { hostname, port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.on('error', reject);
    cleanups.push(async () => void socket.destroy());
  });
}

/** Everything the server sent until it closed the connection, and when it closed it. */
function untilClosed(socket: Socket): Promise<{ text: string; closedAt: number }> {
  let text = '';
  socket.on('data', (data) => (text += data.toString('utf8')));
  return new Promise((resolve) => socket.on('close', () => resolve({ text, closedAt: Date.now() })));
}

describe('finding 8: slow clients are cut at their timeouts', () => {
  it('a trickled body is answered 408 in the envelope and the connection closed at server.request_timeout_ms', async () => {
    const { gateway, upstream } = await setUp('  request_timeout_ms: 1500\n');
    const socket = await openSocket(gateway);
    const closed = untilClosed(socket);
    const started = Date.now();
    const body = JSON.stringify({ model: 'test/chat', messages: [{ role: 'user', content: 'hi' }] });
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${gateway.apiKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    // One byte every 200 ms: the body would take ~10 s to arrive.
    let sent = 0;
    const trickle = setInterval(() => {
      if (!socket.destroyed && sent < body.length) socket.write(body[sent++]!);
    }, 200);
    cleanups.push(async () => clearInterval(trickle));
    const { text, closedAt } = await closed;
    clearInterval(trickle);
    // Node checks request deadlines once a second: cut between 1.5 s and ~2.5 s, far before 10 s.
    expect(closedAt - started).toBeGreaterThanOrEqual(1_400);
    expect(closedAt - started).toBeLessThan(4_000);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    const envelope = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
    expect(envelope.error).toMatchObject({ type: 'invalid_request_error', code: 'request_timeout' });
    expect(envelope.error.message).toMatch(/1500 ms \(server\.request_timeout_ms\)/);
    expect(upstream.requests).toHaveLength(0);
  });

  it('headers trickled in (slowloris) are cut the same way', async () => {
    const { gateway } = await setUp('  request_timeout_ms: 1500\n');
    const socket = await openSocket(gateway);
    const closed = untilClosed(socket);
    const started = Date.now();
    socket.write('GET /v1/models HTTP/1.1\r\nHost: x\r\n');
    const trickle = setInterval(() => !socket.destroyed && socket.write('X-A: b\r\n'), 200);
    cleanups.push(async () => clearInterval(trickle));
    const { text, closedAt } = await closed;
    clearInterval(trickle);
    expect(closedAt - started).toBeLessThan(4_000);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a stream whose client never reads is closed after server.stream_write_stall_ms', async () => {
    // ~40 MB of answer: more than the kernel will buffer for a client that reads nothing.
    const piece = 'x'.repeat(64 * 1024);
    const chunk = (content: string, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'mock-model', choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;
    const body = [...Array.from({ length: 640 }, () => chunk(piece)), chunk('', 'stop'), 'data: [DONE]\n\n'];
    const { gateway, outcomes } = await setUp('  stream_write_stall_ms: 1000\n', body);
    const socket = await openSocket(gateway);
    socket.pause(); // never reads a byte
    const request = JSON.stringify({ model: 'test/chat', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const started = Date.now();
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${gateway.apiKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${request.length}\r\n\r\n${request}`,
    );
    const deadline = Date.now() + 20_000;
    while (outcomes.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]!.errorCode).toBe('client_stalled');
    // Cut soon after the buffers filled, long before the 60 s request deadline.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(outcomes[0]!.outputCharacters).toBeLessThan(640 * piece.length);
  }, 30_000);
});

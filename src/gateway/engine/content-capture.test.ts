import { EventEmitter } from 'node:events';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { CompletionOutcome } from '../../routing/completion-outcome.js';
import { captureContent, type CapturedContent } from './content-capture.js';

/** A stand-in for the Node response: records what reached it, as the socket would. */
class FakeResponse extends EventEmitter {
  readonly written: string[] = [];
  write(chunk: unknown): boolean {
    this.written.push(String(chunk));
    return true;
  }
  end(chunk?: unknown): this {
    if (chunk !== undefined && chunk !== null) this.written.push(String(chunk));
    this.emit('close');
    return this;
  }
  writeHead(_status: number, headers?: Record<string, string>): this {
    void headers;
    return this;
  }
  getHeader(): undefined {
    return undefined;
  }
}

function setUp(maxBytes: number, body: unknown, logged: { userId: string | null } = { userId: 'user_1' }) {
  const raw = new FakeResponse();
  const kept: CapturedContent[] = [];
  const outcome = { requestId: 'req_1', userId: logged.userId, keyId: 'key_1', startedAt: 1234 } as CompletionOutcome;
  captureContent(
    { maxBytes, keep: (content) => kept.push(content) },
    { body } as FastifyRequest,
    { raw } as unknown as FastifyReply,
    outcome,
  );
  return { raw, kept };
}

describe('captureContent', () => {
  it('keeps what was sent and what was written, whole under the cap', () => {
    const { raw, kept } = setUp(1024, { model: 'm' });
    raw.writeHead(200, { 'content-type': 'text/event-stream' });
    raw.write('data: 1\n\n');
    raw.write(Buffer.from('data: 2\n\n'));
    raw.end('data: [DONE]\n\n');
    expect(raw.written.join('')).toBe('data: 1\n\ndata: 2\n\ndata: [DONE]\n\n');
    expect(kept).toHaveLength(1);
    const [content] = kept;
    expect(content!.request.bytes.toString()).toBe('{"model":"m"}');
    expect(content!.response.bytes.toString()).toBe('data: 1\n\ndata: 2\n\ndata: [DONE]\n\n');
    expect(content!.response).toMatchObject({ truncated: false, totalBytes: 32 });
    expect(content).toMatchObject({
      requestId: 'req_1',
      userId: 'user_1',
      createdAt: 1234,
      responseType: 'text/event-stream',
    });
  });

  it('cuts at the cap inside a chunk and counts the rest without holding it', () => {
    const { raw, kept } = setUp(10, 'x'.repeat(30));
    for (let index = 0; index < 100; index++) raw.write('abcdefgh');
    raw.end();
    const [content] = kept;
    expect(content!.response.bytes.toString()).toBe('abcdefghab');
    expect(content!.response).toMatchObject({ truncated: true, totalBytes: 800 });
    expect(content!.request).toMatchObject({ truncated: true, totalBytes: 32 });
    expect(content!.request.bytes).toHaveLength(10);
    // The client still got every byte.
    expect(raw.written.join('')).toHaveLength(800);
  });

  it('keeps nothing for a request without an account', () => {
    const { raw, kept } = setUp(10, {}, { userId: null });
    raw.end('{}');
    expect(kept).toEqual([]);
  });
});

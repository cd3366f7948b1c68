import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError, UpstreamError } from '../../shared/errors.js';
import type { ChatCompletionChunk } from '../../shared/openai-types.js';
import type { CompletionOutcome } from '../../routing/completion-outcome.js';
import type { OpenedAttempt } from '../../routing/open-with-fallback.js';
import { streamBody } from '../../routing/receive-answer.js';
import { openAIAdapter } from '../../providers/openai/openai-adapter.js';
import { toUpstreamError, UpstreamClient } from '../../providers/upstream-client.js';
import { guardUpstreamError } from '../../providers/provider-secrets.js';
import { conformChunk } from '../conform-chat-answer.js';
import { testTranslationContext } from '../../../test/helpers/translation-context.js';
import { readChatChunks, type ChunkResult } from './read-chat-chunks.js';

/**
 * readChatChunks (the Responses, Messages and Gemini surfaces over a translated chat stream) read
 * with `for await` inside an async generator its renderer iterated; it now reads with listeners
 * and hands each chunk to a callback. Each case runs both on a real upstream answer from a local
 * server: the same chunks in the same order, the same outcome, the same error (class, code,
 * message) where the stream fails, and a consumer's own error passed through untouched.
 */
type Behaviour = (response: ServerResponse) => void;
const behaviours = new Map<string, Behaviour>();
let server: Server;
let origin: string;
const upstream = new UpstreamClient();

const chunkEvent = (index: number, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: finish ? {} : { content: `word${index} ` }, finish_reason: finish }] })}\n\n`;
const usageEvent = `data: ${JSON.stringify({ id: 'c-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 3, completion_tokens: 40, total_tokens: 43 } })}\n\n`;

/** Writes the pieces one after another, each leaving as its own write (its own read, mostly). */
function writeEach(response: ServerResponse, pieces: string[], then: () => void): void {
  let index = 0;
  const next = () => {
    if (index === pieces.length) return then();
    response.write(pieces[index++]!);
    setImmediate(next);
  };
  next();
}

const sse = (response: ServerResponse) => response.writeHead(200, { 'content-type': 'text/event-stream' });
const forty = Array.from({ length: 40 }, (_, index) => chunkEvent(index));

beforeAll(async () => {
  behaviours.set('many', (response) => {
    sse(response);
    writeEach(response, [...forty, chunkEvent(40, 'stop'), usageEvent, 'data: [DONE]\n\n'], () => response.end());
  });
  // Every event in one read, as the benchmark's fast upstream answers.
  behaviours.set('one-read', (response) => {
    sse(response);
    response.end(forty.join('') + chunkEvent(40, 'stop') + usageEvent + 'data: [DONE]\n\n');
  });
  // A finish reason, no [DONE]: complete (as on the translated path).
  behaviours.set('finish-no-done', (response) => {
    sse(response);
    writeEach(response, [chunkEvent(0), chunkEvent(1, 'stop')], () => response.end());
  });
  // Ended before any finish: interrupted.
  behaviours.set('short', (response) => {
    sse(response);
    writeEach(response, [chunkEvent(0), chunkEvent(1)], () => response.end());
  });
  // The connection closes mid-answer.
  behaviours.set('early-close', (response) => {
    sse(response);
    writeEach(response, [chunkEvent(0), chunkEvent(1)], () => setTimeout(() => response.socket?.destroy(), 20));
  });
  // A little, then nothing: the idle timeout.
  behaviours.set('stall', (response) => {
    sse(response);
    response.write(chunkEvent(0));
  });
  // Chunks after [DONE], in the same read and later: not handed over.
  behaviours.set('after-done', (response) => {
    sse(response);
    writeEach(response, [chunkEvent(0, 'stop') + 'data: [DONE]\n\n' + chunkEvent(1), chunkEvent(2)], () =>
      response.end(),
    );
  });
  server = createServer((request, response) => behaviours.get(request.url!.slice(1))!(response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await upstream.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const newOutcome = (): CompletionOutcome =>
  ({ usage: null, outputCharacters: 0, timeToFirstTokenMs: null, startedAt: 0 }) as unknown as CompletionOutcome;
const clock = { now: () => 1 } as never;

async function open(path: string, controller: AbortController, idleMs = 5_000): Promise<OpenedAttempt> {
  const context = testTranslationContext({ timeouts: { connectMs: 1000, firstByteMs: 2000, idleMs, totalMs: 10_000 } });
  context.stream = true;
  const request = { method: 'GET', url: `${origin}/${path}`, headers: {}, body: undefined, warnings: [] };
  const response = await upstream.send(context.provider, request as never, controller.signal);
  const candidate = { provider: context.provider } as OpenedAttempt['candidate'];
  return { candidate, adapter: openAIAdapter, context, response, warnings: [] };
}

/** main's reader, kept here as the reference: an async generator reading with `for await`. */
async function* generatorChunks(
  opened: OpenedAttempt,
  outcome: CompletionOutcome,
  signal: AbortSignal,
): AsyncGenerator<ChatCompletionChunk> {
  const body = streamBody(opened);
  const decoder = opened.adapter.createStreamDecoder(opened.context);
  let done = false;
  let finishSeen = false;
  const take = function* (events: ReturnType<typeof decoder.push>) {
    for (const event of events) {
      if (event.type === 'chunk') {
        for (const choice of event.chunk.choices) {
          if (choice.finish_reason) finishSeen = true;
          if (typeof choice.delta.content === 'string') outcome.outputCharacters += choice.delta.content.length;
        }
        yield conformChunk(event.chunk);
      } else if (event.type === 'usage') outcome.usage = event.usage;
      else done = true;
    }
  };
  try {
    for await (const bytes of body) {
      if (done) continue;
      yield* take(decoder.push(bytes as Uint8Array));
    }
    if (!done) yield* take(decoder.end());
    if (!done && !finishSeen)
      throw new UpstreamError(
        502,
        'upstream_stream_interrupted',
        `${opened.candidate.provider.name} closed the stream before the answer was complete.`,
      );
  } catch (error) {
    throw guardUpstreamError(
      error instanceof GatewayError ? error : toUpstreamError(error, opened.candidate.provider, signal),
      opened.candidate.provider,
    );
  } finally {
    if (!body.destroyed) body.destroy();
  }
}

interface Read {
  texts: string[];
  usage: unknown;
  characters: number;
  error?: { name: string; code?: string; message: string } | unknown;
}

const describeError = (error: unknown) =>
  error instanceof GatewayError ? { name: error.constructor.name, code: error.code, message: error.message } : error;
const textOf = (chunk: ChatCompletionChunk) =>
  `${chunk.choices[0]?.delta.content ?? ''}|${chunk.choices[0]?.finish_reason ?? ''}`;

/** Both ways, one after the other, with the same consumer. `each` may return a promise (a drain). */
async function bothWays(
  path: string,
  each: (chunk: ChatCompletionChunk, index: number, controller: AbortController) => ChunkResult = () => undefined,
  idleMs?: number,
): Promise<[Read, Read]> {
  const withGenerator = async (): Promise<Read> => {
    const controller = new AbortController();
    const outcome = newOutcome();
    const read: Read = { texts: [], usage: null, characters: 0 };
    try {
      for await (const chunk of generatorChunks(await open(path, controller, idleMs), outcome, controller.signal)) {
        read.texts.push(textOf(chunk));
        await each(chunk, read.texts.length - 1, controller);
      }
    } catch (error) {
      read.error = describeError(error);
    }
    return { ...read, usage: outcome.usage, characters: outcome.outputCharacters };
  };
  const withListeners = async (): Promise<Read> => {
    const controller = new AbortController();
    const outcome = newOutcome();
    const read: Read = { texts: [], usage: null, characters: 0 };
    try {
      const opened = await open(path, controller, idleMs);
      await readChatChunks(
        opened,
        outcome,
        clock,
        controller.signal,
      )((chunk) => {
        read.texts.push(textOf(chunk));
        return each(chunk, read.texts.length - 1, controller);
      });
    } catch (error) {
      read.error = describeError(error);
    }
    return { ...read, usage: outcome.usage, characters: outcome.outputCharacters };
  };
  return [await withGenerator(), await withListeners()];
}

describe('readChatChunks: the listener reader against the generator it replaced', () => {
  it.each(['many', 'one-read', 'finish-no-done'])('the same chunks, usage and characters (%s)', async (path) => {
    const [generator, listeners] = await bothWays(path);
    expect(generator.error).toBeUndefined();
    expect(listeners).toEqual(generator);
    expect(listeners.texts.length).toBeGreaterThan(1);
  });

  it('chunks after [DONE] are not handed over, as before', async () => {
    const [generator, listeners] = await bothWays('after-done');
    expect(listeners).toEqual(generator);
    expect(listeners.texts).toEqual(['|stop']);
  });

  it('a consumer that waits (a drain) holds the next chunk: none overlaps, none is lost', async () => {
    let pending = 0;
    let overlapped = false;
    const slow = () => {
      if (pending > 0) overlapped = true;
      pending++;
      return new Promise<void>((resolve) =>
        setTimeout(() => {
          pending--;
          resolve();
        }, 2),
      );
    };
    const [generator, listeners] = await bothWays('one-read', slow);
    expect(overlapped).toBe(false);
    expect(listeners).toEqual(generator);
    expect(listeners.texts).toHaveLength(41);
  });

  it.each(['short', 'early-close'])(
    'an upstream that stops before the answer is complete: the same error (%s)',
    async (path) => {
      const [generator, listeners] = await bothWays(path);
      expect(generator.error).toBeDefined();
      expect(listeners).toEqual(generator);
    },
  );

  it('a stalled upstream: the same idle timeout error', async () => {
    const [generator, listeners] = await bothWays('stall', undefined, 200);
    expect(generator.error).toMatchObject({ code: 'upstream_timeout' });
    expect(listeners).toEqual(generator);
  });

  it('an abort mid-answer (the client left): the same error', async () => {
    const abortAtThird = (_: ChatCompletionChunk, index: number, controller: AbortController) => {
      if (index === 2) controller.abort(new UpstreamError(502, 'client_closed_request', 'The request was cancelled.'));
    };
    const [generator, listeners] = await bothWays('many', abortAtThird);
    expect(generator.error).toMatchObject({ code: 'client_closed_request' });
    expect(listeners).toEqual(generator);
  });

  it("a consumer's own failure (a client that stalled) comes back as it is, thrown or rejected", async () => {
    const stalled = new UpstreamError(502, 'client_stalled', 'The client read nothing.');
    for (const fail of [
      () => {
        throw stalled;
      },
      () => Promise.reject(stalled),
    ]) {
      const [generator, listeners] = await bothWays('many', (_, index) => (index === 3 ? fail() : undefined));
      expect(generator.error).toMatchObject({ code: 'client_stalled' });
      expect(listeners).toEqual(generator);
      expect(listeners.texts).toHaveLength(4);
    }
  });
});

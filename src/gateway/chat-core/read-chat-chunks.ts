import { GatewayError, UpstreamError } from '../../shared/errors.js';
import type { ChatCompletionChunk } from '../../shared/openai-types.js';
import type { Clock } from '../../shared/clock.js';
import type { OpenedAttempt } from '../../routing/open-with-fallback.js';
import type { CompletionOutcome } from '../../routing/completion-outcome.js';
import { streamBody } from '../../routing/receive-answer.js';
import { toUpstreamError } from '../../providers/upstream-client.js';
import { guardUpstreamError } from '../../providers/provider-secrets.js';
import { bodyAfterEnd, readBody } from '../../providers/read-body.js';
import { conformChunk } from '../conform-chat-answer.js';

/**
 * What a chunk's consumer returns: nothing (the next chunk comes at once), or a promise (a write
 * waiting for the client's drain): the next chunk, and the upstream body, wait until it settles.
 */
export type ChunkResult = void | Promise<unknown>;

/**
 * A translated stream's chunks, handed to `each` one by one in order. Resolves once the upstream
 * said the answer is complete and its body ended; rejects with the GatewayError of an upstream
 * that failed or stopped before the answer was complete, or with what `each` threw, as it is.
 */
export type ChatChunks = (each: (chunk: ChatCompletionChunk) => ChunkResult) => Promise<void>;

/** What `each` threw or rejected with, carried past the upstream error mapping untouched. */
class ConsumerFailure {
  constructor(readonly error: unknown) {}
}

/**
 * The upstream stream as conformed OpenAI chunks; usage goes to the outcome (not handed over).
 * The body is read with listeners (readBody), not `for await` in a generator: no promise per read
 * and none per chunk, where the generator and its consumer's loop made one for each.
 */
export function readChatChunks(
  opened: OpenedAttempt,
  outcome: CompletionOutcome,
  clock: Clock,
  signal: AbortSignal,
): ChatChunks {
  return (each) => {
    const body = streamBody(opened);
    const decoder = opened.adapter.createStreamDecoder(opened.context);
    let done = false;
    let finishSeen = false;
    type Events = ReturnType<typeof decoder.push>;
    // Hands over the events from `from` on; a consumer's promise holds the rest until it settles.
    const take = (events: Events, from: number): ChunkResult => {
      for (let index = from; index < events.length; index++) {
        const event = events[index]!;
        if (event.type === 'chunk') {
          if (outcome.timeToFirstTokenMs === null) outcome.timeToFirstTokenMs = clock.now() - outcome.startedAt;
          for (const choice of event.chunk.choices) {
            if (choice.finish_reason) finishSeen = true;
            const delta = choice.delta;
            if (typeof delta.content === 'string') outcome.outputCharacters += delta.content.length;
            if (typeof delta.reasoning === 'string') outcome.outputCharacters += delta.reasoning.length;
            for (const call of delta.tool_calls ?? [])
              outcome.outputCharacters += call.function?.arguments?.length ?? 0;
          }
          let result: ChunkResult;
          try {
            result = each(conformChunk(event.chunk));
          } catch (error) {
            throw new ConsumerFailure(error);
          }
          if (result !== undefined)
            return result.then(
              () => take(events, index + 1),
              (error: unknown) => {
                throw new ConsumerFailure(error);
              },
            );
        } else if (event.type === 'usage') {
          outcome.usage = event.usage;
        } else {
          done = true;
          bodyAfterEnd(body);
        }
      }
    };
    const read = async () => {
      try {
        // After the end the answer is complete; read on to the body's end (or the grace's) rather than destroying it mid-read.
        await readBody(body, (bytes) => (done ? undefined : take(decoder.push(bytes), 0)));
        if (!done) await take(decoder.end(), 0);
        if (!done && !finishSeen) {
          throw new UpstreamError(
            502,
            'upstream_stream_interrupted',
            `${opened.candidate.provider.name} closed the stream before the answer was complete.`,
          );
        }
      } catch (error) {
        if (error instanceof ConsumerFailure) throw error.error;
        // After the end marker the answer is complete: the body dropped by the gateway after the
        // grace, or an upstream error within it (a connection reset after [DONE]), is no failure
        // of it, as on chat's own stream (streamCompletion): no error event after the last one.
        if (done) return;
        throw guardUpstreamError(
          error instanceof GatewayError ? error : toUpstreamError(error, opened.candidate.provider, signal),
          opened.candidate.provider,
        );
      } finally {
        if (!body.destroyed) body.destroy();
      }
    };
    return read();
  };
}

import type { FastifyReply } from 'fastify';
import { GatewayError, UpstreamError } from '../shared/errors.js';
import type { ChatCompletionChunk, ChatCompletionRequest, Usage } from '../shared/openai-types.js';
import type { Clock } from '../shared/clock.js';
import { SSE_DONE, clientStalled, openSseStream, sseChunk, sseData, sseError, waitForDrain } from './sse.js';
import type { CompletionOutcome } from '../routing/completion-outcome.js';
import type { OpenedAttempt } from '../routing/open-with-fallback.js';
import { streamBody } from '../routing/receive-answer.js';
import { toUpstreamError } from '../providers/upstream-client.js';
import { guardUpstreamError } from '../providers/provider-secrets.js';
import { bodyAfterEnd, readBody } from '../providers/read-body.js';

export interface StreamCompletionInput {
  request: ChatCompletionRequest;
  reply: FastifyReply;
  opened: OpenedAttempt;
  headers: Record<string, string>;
  outcome: CompletionOutcome;
  signal: AbortSignal;
  clock: Clock;
  requestId: string;
  /** server.stream_write_stall_ms: how long a client may take none of the stream before it is cut. */
  writeStallMs?: number;
  /** Set when the answer reports its cost: the final usage chunk is then always sent, with `cost`. */
  answerUsage?: (usage: Usage | null) => Usage | null;
}

/**
 * Pipes an upstream stream to the client: bytes → provider decoder → OpenAI chunks → SSE.
 * Usage is held back and sent as the final choices:[] chunk only when the client asked
 * (stream_options.include_usage). Once the first byte went out nothing is retried: a failure
 * ends the stream with one `error` event. An upstream that stops before saying it finished is
 * such a failure, never a silent truncation.
 */
export async function streamCompletion(input: StreamCompletionInput): Promise<void> {
  const { reply, opened, outcome, clock } = input;
  const body = streamBody(opened);
  const decoder = opened.adapter.createStreamDecoder(opened.context);
  const raw = openSseStream(reply, input.requestId, input.headers);

  let done = false;
  let finishSeen = false;
  const includeUsage = input.request.stream_options?.include_usage === true;

  const handle = (events: ReturnType<typeof decoder.push>): string => {
    let out = '';
    for (const event of events) {
      if (event.type === 'chunk') {
        if (outcome.timeToFirstTokenMs === null) outcome.timeToFirstTokenMs = clock.now() - outcome.startedAt;
        outcome.outputCharacters += countCharacters(event.chunk);
        if (!finishSeen && hasFinishReason(event.chunk)) finishSeen = true;
        out += sseChunk(event.chunk, event.json);
      } else if (event.type === 'usage') {
        outcome.usage = event.usage;
      } else {
        done = true;
      }
    }
    return out;
  };

  let finished = false;
  const finish = () => {
    finished = true;
    // An upstream that keeps its response open after [DONE] is dropped after a grace: the read
    // then settles, the settlement runs and the client's answer (its end waits for it) ends.
    bodyAfterEnd(body);
    let tail = '';
    const usage = input.answerUsage ? input.answerUsage(outcome.usage) : includeUsage ? outcome.usage : null;
    if (usage) {
      const usageChunk: ChatCompletionChunk = {
        id: opened.context.completionId,
        object: 'chat.completion.chunk',
        created: opened.context.created,
        model: opened.context.publicModel,
        choices: [],
        usage,
      };
      tail += sseData(usageChunk);
    }
    raw.end(tail + SSE_DONE);
  };

  // The loop's `await waitForDrain(…)`, then what followed it in the loop's body.
  const drained = (result: 'drained' | 'closed' | 'stalled') => {
    if (result === 'stalled') throw clientStalled(input.writeStallMs);
    if (done) finish();
  };

  try {
    // Listeners, not `for await` (no promise per read): a write the client must drain first pauses the body.
    await readBody(body, (bytes) => {
      // After [DONE] the client is answered; read on to the body's end instead of stopping,
      // which would destroy the body with an AbortError (and its stack trace) on every stream.
      if (finished) return;
      const out = handle(decoder.push(bytes));
      if (out && !raw.write(out)) return waitForDrain(raw, input.writeStallMs).then(drained);
      if (done) finish();
    });
    if (finished) return;
    const out = handle(decoder.end());
    if (out) raw.write(out);
    if (!done && !finishSeen) {
      throw new UpstreamError(
        502,
        'upstream_stream_interrupted',
        `${opened.candidate.provider.name} closed the stream before the answer was complete.`,
      );
    }
    finish();
  } catch (error) {
    // The answer was complete; what the upstream did after [DONE] is no failure of this request.
    if (finished) return;
    const gatewayError = guardUpstreamError(
      error instanceof GatewayError ? error : toUpstreamError(error, opened.candidate.provider, input.signal),
      opened.candidate.provider,
    );
    outcome.status = gatewayError.status;
    outcome.errorCode = gatewayError.code;
    if (!outcome.clientAborted && !raw.destroyed) raw.end(sseError(gatewayError));
    else raw.destroy();
  } finally {
    if (!body.destroyed) body.destroy();
  }
}

/** Plain loops: these run for every chunk, and a callback or iterator per chunk is garbage. */
function hasFinishReason(chunk: ChatCompletionChunk): boolean {
  const choices = chunk.choices;
  for (let index = 0; index < choices.length; index++) if (choices[index].finish_reason) return true;
  return false;
}

function countCharacters(chunk: ChatCompletionChunk): number {
  let total = 0;
  const choices = chunk.choices;
  for (let index = 0; index < choices.length; index++) {
    const choice = choices[index];
    const delta = choice.delta;
    if (typeof delta.content === 'string') total += delta.content.length;
    if (typeof delta.reasoning === 'string') total += delta.reasoning.length;
    if (delta.tool_calls) for (const call of delta.tool_calls) total += call.function?.arguments?.length ?? 0;
  }
  return total;
}

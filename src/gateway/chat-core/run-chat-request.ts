import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, UpstreamError } from '../../shared/errors.js';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest, Usage } from '../../shared/openai-types.js';
import type { ChatHandlerDeps } from '../chat-completions-handler.js';
import type { OpenedAttempt } from '../../routing/open-with-fallback.js';
import { streamBody } from '../../routing/receive-answer.js';
import { toUpstreamError } from '../../providers/upstream-client.js';
import { guardUpstreamError } from '../../providers/provider-secrets.js';
import type { CompletionOutcome } from '../../routing/completion-outcome.js';
import { conformChunk } from '../conform-chat-answer.js';
import { runRequest, type EngineCall, type OpenedAnswer } from '../engine/request-engine.js';
import { openChat, readChatCompletion } from '../engine/open-chat.js';
import { nativeSupport, openNativeOrChat, type NativeCall, type OpenedEither } from '../engine/open-native.js';
import { renderNative } from '../engine/render-native.js';

/** How an endpoint that speaks another API (Responses, Anthropic Messages) answers a translated chat request. */
export interface ChatAnswerRenderer {
  /** A whole answer: send it in the endpoint's own format. */
  whole(completion: ChatCompletion, headers: Record<string, string>): Promise<void> | void;
  /**
   * A stream: consume the chunks and write the endpoint's own events. Headers are not sent yet.
   * A failure thrown by the chunk iterator must be rendered as the endpoint's stream error event
   * and recorded with `fail`; it is not rethrown.
   */
  stream(
    chunks: AsyncGenerator<ChatCompletionChunk>,
    headers: Record<string, string>,
    fail: (error: GatewayError) => void,
    /** The usage the upstream reported so far (final once the chunks are exhausted). */
    usage: () => Usage | null,
  ): Promise<void>;
}

/**
 * A chat request from a surface that translates into chat (Responses, Anthropic Messages), on the
 * one engine: the answer is handed to the surface's renderer as a chat completion or chunks.
 */
export async function runChatRequest(
  deps: ChatHandlerDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  body: ChatCompletionRequest,
  renderer: ChatAnswerRenderer,
  /** What the surface's translation dropped, and whether its search request was optional. */
  translation: Pick<
    EngineCall<OpenedAnswer>,
    'dropped' | 'optionalSearchParam' | 'strictRefusal' | 'untranslatable' | 'eligible' | 'affinityKey'
  > = {},
  /** The client's own request, forwarded as it is to endpoints that speak its API. */
  native?: { call: NativeCall; errorEvent: (error: GatewayError) => string },
): Promise<void> {
  await runRequest<OpenedEither>(deps, request, reply, {
    ...translation,
    routed: body,
    streamed: body.stream === true,
    nativeFor: native
      ? (candidate) => nativeSupport(deps.registry, native.call.api, candidate) !== undefined
      : undefined,
    open: async (run) =>
      native ? openNativeOrChat(deps, run, native.call) : { ...(await openChat(deps, run)), kind: 'chat' as const },
    async render(opened, run, headers) {
      if (opened.kind === 'native') {
        const options = { clock: deps.clock, writeStallMs: deps.writeStallMs, errorEvent: native!.errorEvent };
        return renderNative(opened, run, headers, options);
      }
      const { outcome } = run;
      if (body.stream) {
        const fail = (error: GatewayError) => {
          outcome.status = error.status;
          outcome.errorCode = error.code;
        };
        const chunks = readChatChunks(opened, outcome, deps.clock, run.controller.signal);
        // The usage is read by the renderer once the chunks are exhausted: final, so it may be priced.
        await renderer.stream(chunks, headers, fail, () => run.answerUsage(outcome.usage));
        return;
      }
      const completion = await readChatCompletion(opened, outcome, deps.clock);
      if (run.costIncluded) completion.usage = run.answerUsage(outcome.usage) ?? undefined;
      await renderer.whole(completion, headers);
    },
  });
}

/**
 * The upstream stream as conformed OpenAI chunks; usage goes to the outcome (not yielded).
 * Throws a GatewayError when the upstream fails or stops before saying the answer is complete.
 */
async function* readChatChunks(
  opened: OpenedAttempt,
  outcome: CompletionOutcome,
  clock: ChatHandlerDeps['clock'],
  signal: AbortSignal,
): AsyncGenerator<ChatCompletionChunk> {
  const body = streamBody(opened);
  const decoder = opened.adapter.createStreamDecoder(opened.context);
  let done = false;
  let finishSeen = false;
  const take = function* (events: ReturnType<typeof decoder.push>) {
    for (const event of events) {
      if (event.type === 'chunk') {
        if (outcome.timeToFirstTokenMs === null) outcome.timeToFirstTokenMs = clock.now() - outcome.startedAt;
        for (const choice of event.chunk.choices) {
          if (choice.finish_reason) finishSeen = true;
          const delta = choice.delta;
          if (typeof delta.content === 'string') outcome.outputCharacters += delta.content.length;
          if (typeof delta.reasoning === 'string') outcome.outputCharacters += delta.reasoning.length;
          for (const call of delta.tool_calls ?? []) outcome.outputCharacters += call.function?.arguments?.length ?? 0;
        }
        yield conformChunk(event.chunk);
      } else if (event.type === 'usage') {
        outcome.usage = event.usage;
      } else {
        done = true;
      }
    }
  };
  try {
    for await (const bytes of body) {
      // After the end the answer is complete; read on to the body's end rather than destroying it mid-read.
      if (done) continue;
      yield* take(decoder.push(bytes as Uint8Array));
    }
    if (!done) yield* take(decoder.end());
    if (!done && !finishSeen) {
      throw new UpstreamError(
        502,
        'upstream_stream_interrupted',
        `${opened.candidate.provider.name} closed the stream before the answer was complete.`,
      );
    }
  } catch (error) {
    throw guardUpstreamError(
      error instanceof GatewayError ? error : toUpstreamError(error, opened.candidate.provider, signal),
      opened.candidate.provider,
    );
  } finally {
    if (!body.destroyed) body.destroy();
  }
}

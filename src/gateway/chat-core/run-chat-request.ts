import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayError } from '../../shared/errors.js';
import type { ChatCompletion, ChatCompletionRequest, Usage } from '../../shared/openai-types.js';
import type { ChatHandlerDeps } from '../chat-completions-handler.js';
import { runRequest, type EngineCall, type OpenedAnswer } from '../engine/request-engine.js';
import { openChat, readChatCompletion } from '../engine/open-chat.js';
import { nativeSupport, openNativeOrChat, type NativeCall, type OpenedEither } from '../engine/open-native.js';
import { renderNative } from '../engine/render-native.js';
import { readChatChunks, type ChatChunks } from './read-chat-chunks.js';

/** How an endpoint that speaks another API (Responses, Anthropic Messages) answers a translated chat request. */
export interface ChatAnswerRenderer {
  /** A whole answer: send it in the endpoint's own format. */
  whole(completion: ChatCompletion, headers: Record<string, string>): Promise<void> | void;
  /**
   * A stream: consume the chunks and write the endpoint's own events. Headers are not sent yet.
   * A failure the chunks reject with must be rendered as the endpoint's stream error event and
   * recorded with `fail`; it is not rethrown.
   */
  stream(
    chunks: ChatChunks,
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

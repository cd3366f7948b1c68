import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChatCompletionRequest } from '../shared/openai-types.js';
import { validateChatRequest } from './validate-chat-request.js';
import { streamCompletion } from './stream-completion.js';
import { sseError } from './sse.js';
import { runRequest } from './engine/request-engine.js';
import { readChatCompletion, type ChatEngineDeps } from './engine/open-chat.js';
import { nativeSupport, openNativeOrChat, type NativeCall, type OpenedEither } from './engine/open-native.js';
import { renderNative } from './engine/render-native.js';
import { chatCandidates } from './chat-eligible.js';

export type ChatHandlerDeps = ChatEngineDeps;

/**
 * POST /v1/chat/completions: validate, one engine call, the answer as chat completion JSON or
 * chunks. An endpoint that passes chat through (OpenAI's own API, or one the operator marks
 * `chat_pass_through`) gets the client's body and answers with its own bytes; the others are
 * read through their adapters and answered with conformed chunks.
 */
export function createChatCompletionsHandler(deps: ChatHandlerDeps) {
  return async function handleChatCompletion(
    request: FastifyRequest<{ Body: ChatCompletionRequest }>,
    reply: FastifyReply,
  ): Promise<void> {
    const body = request.body;
    validateChatRequest(body);
    const call: NativeCall = {
      api: 'openai-chat',
      body,
      stream: body.stream === true,
      clientHeaders: {},
    };
    await runRequest<OpenedEither>(deps, request, reply, {
      routed: body,
      streamed: body.stream === true,
      affinityKey: typeof body.prompt_cache_key === 'string' ? body.prompt_cache_key : null,
      eligible: (planned) => chatCandidates(planned, body.model),
      nativeFor: (candidate) => nativeSupport(deps.registry, 'openai-chat', candidate) !== undefined,
      open: (run) => openNativeOrChat(deps, run, call),
      async render(opened, run, headers) {
        const { outcome } = run;
        if (opened.kind === 'native') {
          const options = { clock: deps.clock, writeStallMs: deps.writeStallMs, errorEvent: sseError };
          return renderNative(opened, run, headers, options);
        }
        if (body.stream) {
          await streamCompletion({
            request: body,
            reply,
            opened,
            headers,
            outcome,
            signal: run.controller.signal,
            clock: deps.clock,
            requestId: request.id,
            writeStallMs: deps.writeStallMs,
            answerUsage: run.costIncluded ? run.answerUsage : undefined,
          });
          return;
        }
        const completion = await readChatCompletion(opened, outcome, deps.clock);
        if (run.costIncluded) completion.usage = run.answerUsage(outcome.usage) ?? undefined;
        run.finish();
        reply.headers(headers).send(completion);
      },
    });
  };
}

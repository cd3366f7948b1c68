import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChatCompletionRequest } from '../shared/openai-types.js';
import { validateChatRequest } from './validate-chat-request.js';
import { streamCompletion } from './stream-completion.js';
import { runRequest } from './engine/request-engine.js';
import { openChat, readChatCompletion, type ChatEngineDeps } from './engine/open-chat.js';
import { chatCandidates } from './chat-eligible.js';

export type ChatHandlerDeps = ChatEngineDeps;

/** POST /v1/chat/completions: validate, one engine call, the answer as chat completion JSON or chunks. */
export function createChatCompletionsHandler(deps: ChatHandlerDeps) {
  return async function handleChatCompletion(
    request: FastifyRequest<{ Body: ChatCompletionRequest }>,
    reply: FastifyReply,
  ): Promise<void> {
    const body = request.body;
    validateChatRequest(body);
    await runRequest(deps, request, reply, {
      routed: body,
      streamed: body.stream === true,
      affinityKey: typeof body.prompt_cache_key === 'string' ? body.prompt_cache_key : null,
      eligible: (planned) => chatCandidates(planned, body.model),
      open: (run) => openChat(deps, run),
      async render(opened, run, headers) {
        const { outcome } = run;
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
        reply.headers(headers).send(completion);
      },
    });
  };
}

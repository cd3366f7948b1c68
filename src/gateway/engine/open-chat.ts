import type { Usage } from '../../shared/openai-types.js';
import type { Clock } from '../../shared/clock.js';
import type { CompletionOutcome } from '../../routing/completion-outcome.js';
import { conformCompletion } from '../conform-chat-answer.js';
import type { ProviderRegistry } from '../../providers/provider-registry.js';
import type { UpstreamClient } from '../../providers/upstream-client.js';
import type { IdGenerator } from '../../shared/ids.js';
import { openWithFallback, type OpenedAttempt } from '../../routing/open-with-fallback.js';
import { streamBody } from '../../routing/receive-answer.js';
import type { EngineDeps, EngineRun, OpenedAnswer } from './request-engine.js';

/** What the chat path needs besides the engine's own dependencies. */
export interface ChatEngineDeps extends EngineDeps {
  registry: ProviderRegistry;
  upstream: UpstreamClient;
  ids: IdGenerator;
  /** server.stream_write_stall_ms: a stream whose client takes nothing for this long is cut. */
  writeStallMs?: number;
}

/** A chat answer opened through a provider adapter (translated to the provider's protocol). */
export type OpenedChat = OpenedAttempt & OpenedAnswer;

/** Opens the run's (routed) chat request on the run's candidates through their adapters (fallback, retries). */
export async function openChat(deps: ChatEngineDeps, run: EngineRun): Promise<OpenedChat> {
  const opened = await openWithFallback({
    registry: deps.registry,
    upstream: deps.upstream,
    clock: deps.clock,
    ids: deps.ids,
    routing: deps.routing,
    body: run.routed,
    candidates: run.candidates,
    controller: run.controller,
    deadline: run.deadline,
    outcome: run.outcome,
    requestId: run.request.id,
    log: run.request.log,
  });
  return { ...opened, readingFrom: opened.candidate.provider };
}

/** A whole chat answer (parsed inside the attempt, or read now), its usage and output recorded on the outcome. */
export async function readChatCompletion(opened: OpenedChat, outcome: CompletionOutcome, clock: Clock) {
  const completion = conformCompletion(
    opened.completion ??
      opened.adapter.parseResponse(new Uint8Array(await streamBody(opened).arrayBuffer()), opened.context),
  );
  outcome.usage = (completion.usage as Usage | undefined) ?? null;
  outcome.outputCharacters = completion.choices.reduce(
    (sum, choice) => sum + (choice.message?.content?.length ?? 0),
    0,
  );
  outcome.timeToFirstTokenMs = clock.now() - outcome.startedAt;
  return completion;
}

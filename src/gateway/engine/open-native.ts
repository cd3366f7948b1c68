import type { NativeApi, NativeSupport, NativeUsageReader } from '../../providers/native-api.js';
import type { StreamTranscoder, TranslationContext } from '../../providers/provider-adapter.js';
import type { ProviderRegistry } from '../../providers/provider-registry.js';
import type { UpstreamResponse } from '../../providers/upstream-client.js';
import type { RouteCandidate } from '../../routing/model-directory.js';
import { attemptChat, refuseChat } from '../../routing/open-with-fallback.js';
import { openStreamedAnswer, receiveWholeAnswer } from '../../routing/receive-answer.js';
import { beforeSending, recordAttempt, runWithFallback } from '../../routing/run-with-fallback.js';
import type { ChatEngineDeps, OpenedChat } from './open-chat.js';
import type { EngineRun, OpenedAnswer } from './request-engine.js';

/** The gateway's own request fields, never forwarded upstream. */
// `usage` ({include: true}) asks the gateway for the cost in the answer: no upstream field.
const GATEWAY_ONLY_FIELDS = ['models', 'provider', 'route', 'transforms', 'usage'] as const;

/** A request in the client's own API, as it may be forwarded to an endpoint that speaks it. */
export interface NativeCall {
  api: NativeApi;
  body: Record<string, unknown>;
  stream: boolean;
  clientHeaders: Record<string, string>;
  action?: string;
}

/** An answer from an endpoint that speaks the client's API: its bytes go back as they are. */
export interface OpenedNative extends OpenedAnswer {
  kind: 'native';
  /** The API the upstream speaks (the client's). */
  api: NativeApi;
  /** A stream's opened answer, its body still to be read; absent for a whole answer (`bytes`). */
  response?: UpstreamResponse;
  reader: NativeUsageReader;
  /** A whole answer's bytes, read (and its usage parsed) inside the attempt; null for a stream. */
  bytes: Uint8Array | null;
  /** Re-frames a stream whose upstream frames the API's events its own way (Bedrock); null when it sends SSE. */
  transcoder: StreamTranscoder | null;
}

/** Either kind of opened answer: native bytes, or a chat answer translated from another protocol. */
export type OpenedEither = OpenedNative | (OpenedChat & { kind: 'chat' });

/** How this candidate's endpoint speaks the API natively, when it does. */
export function nativeSupport(
  registry: ProviderRegistry,
  api: NativeApi,
  candidate: RouteCandidate,
): NativeSupport | undefined {
  return registry.get(candidate.provider.type)?.native?.(api, candidate.provider, candidate.endpoint.upstreamModel);
}

/**
 * Opens the run on its candidates: natively where the endpoint speaks the client's API, through
 * the chat translation (run.routed) elsewhere, with one fallback order across both kinds.
 */
export function openNativeOrChat(deps: ChatEngineDeps, run: EngineRun, call: NativeCall): Promise<OpenedEither> {
  const chatInput = {
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
  };
  const body = { ...call.body };
  for (const field of GATEWAY_ONLY_FIELDS) delete body[field];
  return runWithFallback<OpenedEither>({
    ...chatInput,
    refuse: (candidate) =>
      nativeSupport(deps.registry, call.api, candidate) ? null : refuseChat(chatInput, candidate),
    attempt: async (candidate) => {
      const support = nativeSupport(deps.registry, call.api, candidate);
      if (!support) {
        const result = await attemptChat(chatInput, candidate);
        if (!('value' in result)) return result;
        const opened = result.value;
        return { value: { ...opened, kind: 'chat' as const, readingFrom: opened.candidate.provider } };
      }
      return recordAttempt(chatInput, candidate, async (attempt, setRetryAfter) => {
        const adapter = deps.registry.get(candidate.provider.type)!;
        const context: TranslationContext = {
          provider: candidate.provider,
          upstreamModel: candidate.endpoint.upstreamModel,
          publicModel: candidate.model.id,
          completionId: run.request.id,
          created: Math.floor(deps.clock.now() / 1000),
          generateId: (prefix) => deps.ids.next(prefix),
          stream: call.stream,
        };
        const nativeRequest = { body, stream: call.stream, clientHeaders: call.clientHeaders, action: call.action };
        const upstreamRequest = await beforeSending(() => support.buildRequest(nativeRequest, context));
        const answerCall = {
          upstream: deps.upstream,
          provider: candidate.provider,
          signal: run.controller.signal,
          clock: deps.clock,
          attempt,
          setRetryAfter,
          adapter,
          context,
        };
        if (!call.stream) {
          // Read whole (a dispatch handler, no body stream). Nothing reached the client yet: a body
          // that breaks off or does not parse still falls back.
          const bytes = await receiveWholeAnswer(answerCall, upstreamRequest);
          const reader = support.createUsageReader(nativeRequest);
          reader.whole(bytes);
          const opened: OpenedNative = {
            kind: 'native',
            api: call.api,
            candidate,
            reader,
            bytes,
            transcoder: null,
            readingFrom: candidate.provider,
            native: true,
          };
          return opened;
        }
        const response = await openStreamedAnswer(answerCall, upstreamRequest);
        const opened: OpenedNative = {
          kind: 'native',
          api: call.api,
          candidate,
          response,
          reader: support.createUsageReader(nativeRequest),
          bytes: null,
          transcoder: support.createStreamTranscoder?.(context) ?? null,
          readingFrom: candidate.provider,
          native: true,
        };
        return opened;
      });
    },
  });
}

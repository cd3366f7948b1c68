import { UpstreamError } from '../../shared/errors.js';
import type { ChatCompletionChunk } from '../../shared/openai-types.js';
import { SseDecoder, type SseEvent } from '../framing/sse-decoder.js';
import type { StreamDecoder, StreamEvent, TranslationContext } from '../provider-adapter.js';
import { createChunk } from '../shared/openai-chunk.js';
import { parseUpstreamJson } from '../shared/parse-upstream-json.js';
import { mapGeminiError } from './gemini-error.js';
import { applyPartialArgs } from './gemini-partial-args.js';
import { encodeGeminiToolCallId } from './gemini-tool-call-id.js';
import type { GeminiCandidate, GeminiPart, GeminiResponse } from './gemini-types.js';
import { isPromptBlocked, mapGeminiFinishReason } from './map-gemini-finish-reason.js';
import { mapGeminiUsage } from './map-gemini-usage.js';

type Delta = ChatCompletionChunk['choices'][number]['delta'];

interface CandidateState {
  toolCallCount: number;
  finishReason?: string;
  /** A Vertex call whose arguments are still arriving in partialArgs fragments. */
  openCall?: { toolIndex: number; args: Record<string, unknown> };
}

/**
 * streamGenerateContent?alt=sse (CRLF-framed, no terminator) → OpenAI chunks. Each event is a
 * whole GenerateContentResponse; text and thought parts become deltas, a function call arrives
 * whole (or, on Vertex, as partialArgs fragments) and becomes one tool call with an id we make.
 * Gemini repeats finishReason (older models on every event) and has no end marker, so the finish
 * chunk is sent when the body ends cleanly; a body that ends with no finishReason is cut.
 * A google.rpc.Status, whether as an SSE event or as the whole body, fails the stream.
 */
export class GeminiStreamDecoder implements StreamDecoder {
  private readonly sse = new SseDecoder();
  private readonly candidates = new Map<number, CandidateState>();
  private promptBlocked = false;
  /** Set when the body does not look like SSE at all (a bare JSON error): buffered until the end. */
  private rawBody: string | null = null;
  private sawContent = false;
  private readonly rawDecoder = new TextDecoder();

  constructor(private readonly context: TranslationContext) {}

  push(bytes: Uint8Array): StreamEvent[] {
    if (!this.sawContent) {
      const first = bytes.find((byte) => byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09);
      if (first !== undefined) {
        this.sawContent = true;
        if (first === 0x7b /* { */ || first === 0x5b /* [ */) this.rawBody = '';
      }
    }
    if (this.rawBody !== null) {
      this.rawBody += this.rawDecoder.decode(bytes, { stream: true });
      return [];
    }
    return this.translate(this.sse.push(bytes));
  }

  end(): StreamEvent[] {
    if (this.rawBody !== null) {
      this.rawBody += this.rawDecoder.decode();
      const parsed = parseUpstreamJson(
        this.rawBody.trim().replace(/^\[([\s\S]*)\]$/, '$1'),
        this.context.provider.name,
        'a stream body',
      );
      if (parsed.error) throw mapGeminiError(200, this.rawBody, {}, this.context.provider.name);
      throw new UpstreamError(
        502,
        'upstream_bad_response',
        `${this.context.provider.name} answered a stream request without server-sent events.`,
      );
    }
    const out = this.translate(this.sse.end());
    const finished = [...this.candidates.entries()].filter(([, state]) => state.finishReason !== undefined);
    if (this.promptBlocked && this.candidates.size === 0) {
      out.push({
        type: 'chunk',
        chunk: createChunk(this.context, { role: 'assistant', content: '' }, 'content_filter'),
      });
      out.push({ type: 'done' });
    } else if (finished.length > 0) {
      for (const [index, state] of finished) {
        out.push({
          type: 'chunk',
          chunk: createChunk(
            this.context,
            {},
            mapGeminiFinishReason(state.finishReason, state.toolCallCount > 0),
            index,
          ),
        });
      }
      out.push({ type: 'done' });
    }
    return out;
  }

  private translate(events: SseEvent[]): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const event of events) {
      if (event.data === '') continue;
      const payload = parseUpstreamJson(event.data, this.context.provider.name, 'a stream event') as GeminiResponse;
      if (payload.error) throw mapGeminiError(200, event.data, {}, this.context.provider.name);
      if (payload.usageMetadata) out.push({ type: 'usage', usage: mapGeminiUsage(payload.usageMetadata) });
      if (isPromptBlocked(payload.promptFeedback?.blockReason)) this.promptBlocked = true;
      (payload.candidates ?? []).forEach((candidate, position) =>
        this.translateCandidate(candidate, candidate.index ?? position, out),
      );
    }
    return out;
  }

  private translateCandidate(candidate: GeminiCandidate, index: number, out: StreamEvent[]): void {
    let state = this.candidates.get(index);
    if (!state) {
      state = { toolCallCount: 0 };
      this.candidates.set(index, state);
      this.emit(out, index, { role: 'assistant', content: '' });
    }
    for (const part of candidate.content?.parts ?? []) this.translatePart(part, state, index, out);
    if (candidate.finishReason) state.finishReason = candidate.finishReason;
  }

  private translatePart(part: GeminiPart, state: CandidateState, index: number, out: StreamEvent[]): void {
    const call = part.functionCall;
    if (call) {
      if (call.name) {
        const toolIndex = state.toolCallCount++;
        const id = encodeGeminiToolCallId(call.id ?? this.context.generateId('call_'), part.thoughtSignature);
        const whole = !call.willContinue && !call.partialArgs;
        const args = whole ? JSON.stringify(call.args ?? {}) : '';
        this.emit(out, index, {
          tool_calls: [{ index: toolIndex, id, type: 'function', function: { name: call.name, arguments: args } }],
        });
        if (!whole) state.openCall = { toolIndex, args: { ...(call.args ?? {}) } };
        if (call.partialArgs && state.openCall) applyPartialArgs(state.openCall.args, call.partialArgs);
      } else if (state.openCall) {
        if (call.partialArgs) applyPartialArgs(state.openCall.args, call.partialArgs);
        if (!call.willContinue) {
          // The arguments are whole only now; they go out as one fragment of valid JSON.
          this.emit(out, index, {
            tool_calls: [
              { index: state.openCall.toolIndex, function: { arguments: JSON.stringify(state.openCall.args) } },
            ],
          });
          state.openCall = undefined;
        }
      }
      return;
    }
    if (typeof part.text === 'string' && part.text !== '') {
      this.emit(out, index, part.thought ? { reasoning: part.text } : { content: part.text });
    }
  }

  private emit(out: StreamEvent[], index: number, delta: Delta): void {
    out.push({ type: 'chunk', chunk: createChunk(this.context, delta, null, index) });
  }
}

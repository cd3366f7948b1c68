import { GatewayError, UpstreamError } from '../../shared/errors.js';
import type { Static } from '@sinclair/typebox';
import type { ChatCompletionChunk } from '../../shared/openai-types.js';
import { SseDecoder } from '../framing/sse-decoder.js';
import type { StreamDecoder, StreamEvent, TranslationContext } from '../provider-adapter.js';
import { upstreamChecker } from '../shared/upstream-schema.js';
import { OpenAIChunkSchema } from './openai-chunk-schema.js';
import { mapOpenAIError } from './openai-error.js';
import { normalizeDelta, readUsage } from './normalize-openai-compatible.js';
import { renameInPlace, splicedChunkText } from './openai-chunk-splice.js';
import { readCompactChunk, type CompactIdentity } from './openai-compact-chunk.js';

/**
 * OpenAI-compatible SSE → our events. Usage is pulled out of whatever chunk carries it (the
 * trailing choices:[] chunk, or the finish chunk as some providers do) and reported separately,
 * so the core decides whether the client sees it. An `error` payload or `event: error` ends the
 * stream with an error. A chunk that needs nothing but our id and model comes with its text
 * ready (`json`): read without JSON.parse when it has the commonest layout (openai-compact-chunk.ts),
 * else parsed and spliced (openai-chunk-splice.ts); any other chunk is translated in full.
 */
export class OpenAIStreamDecoder implements StreamDecoder {
  private readonly sse = new SseDecoder();
  private finished = false;
  /** An error met after other events in the same read (Groq's mid-stream error): those go out first. */
  private pendingError: GatewayError | undefined;
  /** Our id and model, as values and as JSON, for the chunks passed on as their text. */
  private readonly identity: CompactIdentity;

  constructor(private readonly context: TranslationContext) {
    this.identity = {
      id: context.completionId,
      model: context.publicModel,
      idJson: JSON.stringify(context.completionId),
      modelJson: JSON.stringify(context.publicModel),
      last: undefined,
    };
  }

  push(bytes: Uint8Array): StreamEvent[] {
    if (this.pendingError) throw this.pendingError;
    return this.translate(this.sse.push(bytes));
  }

  end(): StreamEvent[] {
    if (this.pendingError) throw this.pendingError;
    return this.translate(this.sse.end());
  }

  private translate(events: ReturnType<SseDecoder['push']>): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const event of events) {
      if (this.finished) break;
      try {
        this.translateEvent(event, out);
      } catch (error) {
        if (!(error instanceof GatewayError) || out.length === 0) throw error;
        this.pendingError = error;
        break;
      }
    }
    return out;
  }

  private translateEvent(event: ReturnType<SseDecoder['push']>[number], out: StreamEvent[]): void {
    const data = event.data;
    if (data === '[DONE]') {
      this.finished = true;
      out.push({ type: 'done' });
      return;
    }
    if (data === '') return;
    // The commonest chunk, read from its text; the rest parsed, then spliced or translated.
    if (event.event === null) {
      const compact = readCompactChunk(data, this.identity);
      if (compact !== undefined) {
        out.push({ type: 'chunk', chunk: compact.chunk, json: compact.json });
        return;
      }
    }
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(data) as Record<string, unknown>;
    } catch {
      throw new UpstreamError(
        502,
        'upstream_bad_response',
        `${this.context.provider.name} sent a stream event that is not JSON.`,
      );
    }
    if (payload === null || typeof payload !== 'object') {
      throw new UpstreamError(
        502,
        'upstream_bad_response',
        `${this.context.provider.name} sent a stream event that is not an object.`,
      );
    }
    if (event.event === 'error' || payload.error !== undefined) {
      throw streamError(payload, this.context);
    }
    const wire = chunkChecker.read(payload, this.context.provider.name, 'a stream chunk');
    const json = splicedChunkText(data, payload, this.identity);
    if (json === undefined) {
      this.translateChunk(wire, out);
      return;
    }
    renameInPlace(payload, this.context.completionId, this.context.publicModel);
    // Checked, and by splicedChunkText already the chunk the translation would make.
    out.push({ type: 'chunk', chunk: payload as unknown as ChatCompletionChunk, json });
  }

  /** The checked chunk as ours: shallow copies with our ids (fields not read go along untouched), usage apart. */
  private translateChunk(wire: OpenAIWireChunk, out: StreamEvent[]): void {
    const { usage, x_groq: groq, choices, ...rest } = wire;
    const reported = usage ?? groq?.usage;
    if (reported) out.push({ type: 'usage', usage: readUsage(reported) });
    if (!choices || choices.length === 0) return;
    const chunk: ChatCompletionChunk = {
      ...rest,
      id: this.context.completionId,
      object: 'chat.completion.chunk',
      created: wire.created ?? this.context.created,
      model: this.context.publicModel,
      choices: choices.map((choice, position) => ({
        ...choice,
        index: choice.index ?? position,
        delta: normalizeDelta(choice.delta ?? {}),
        finish_reason: choice.finish_reason ?? null,
      })),
    };
    out.push({ type: 'chunk', chunk });
  }
}

type OpenAIWireChunk = Static<typeof OpenAIChunkSchema>;
const chunkChecker = upstreamChecker(OpenAIChunkSchema);

/** An error event mid-stream is the provider failing: a 502 with its code, or `upstream_error`. */
function streamError(payload: Record<string, unknown>, context: TranslationContext): GatewayError {
  return mapOpenAIError(502, new TextEncoder().encode(JSON.stringify(payload)), {}, context.provider.name);
}

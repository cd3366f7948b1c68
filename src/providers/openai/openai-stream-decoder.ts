import { GatewayError, UpstreamError } from '../../shared/errors.js';
import type { ChatCompletionChunk, Usage } from '../../shared/openai-types.js';
import { SseDecoder } from '../framing/sse-decoder.js';
import type { StreamDecoder, StreamEvent, TranslationContext } from '../provider-adapter.js';
import { mapOpenAIError } from './openai-error.js';
import { normalizeDelta, normalizeUsage } from './normalize-openai-compatible.js';

/**
 * OpenAI-compatible SSE → our events. Usage is pulled out of whatever chunk carries it (the
 * trailing choices:[] chunk, or the finish chunk as some providers do) and reported separately,
 * so the core decides whether the client sees it. An `error` payload or `event: error` ends the
 * stream with an error.
 */
export class OpenAIStreamDecoder implements StreamDecoder {
  private readonly sse = new SseDecoder();
  private finished = false;
  /** An error met after other events in the same read (Groq's mid-stream error): those go out first. */
  private pendingError: GatewayError | undefined;

  constructor(private readonly context: TranslationContext) {}

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
    this.translateChunk(payload as unknown as ChatCompletionChunk, out);
  }

  private translateChunk(chunk: ChatCompletionChunk, out: StreamEvent[]): void {
    const usage = (chunk.usage ?? (chunk.x_groq as { usage?: Usage } | undefined)?.usage) as Usage | null | undefined;
    if (usage) out.push({ type: 'usage', usage: normalizeUsage(usage) });
    if (!Array.isArray(chunk.choices) || chunk.choices.length === 0) return;
    chunk.id = this.context.completionId;
    chunk.model = this.context.publicModel;
    if ('usage' in chunk) delete chunk.usage;
    if ('x_groq' in chunk) delete chunk.x_groq;
    for (const choice of chunk.choices) if (choice.delta) normalizeDelta(choice.delta);
    out.push({ type: 'chunk', chunk });
  }
}

/** An error event mid-stream is the provider failing: a 502 with its code, or `upstream_error`. */
function streamError(payload: Record<string, unknown>, context: TranslationContext): GatewayError {
  return mapOpenAIError(502, new TextEncoder().encode(JSON.stringify(payload)), {}, context.provider.name);
}

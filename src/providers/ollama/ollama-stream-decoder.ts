import { GatewayError, UpstreamError } from '../../shared/errors.js';
import type { ChatCompletionChunk } from '../../shared/openai-types.js';
import { NdjsonDecoder, NdjsonFormatError } from '../framing/ndjson-decoder.js';
import type { StreamDecoder, StreamEvent, TranslationContext } from '../provider-adapter.js';
import {
  convertOllamaToolCalls,
  convertOllamaUsage,
  mapOllamaFinishReason,
  type OllamaChatObject,
} from './ollama-response.js';

type Delta = ChatCompletionChunk['choices'][number]['delta'];

/**
 * Ollama's NDJSON stream → OpenAI chunks. Each `done:false` line is a delta (content, thinking →
 * reasoning, whole tool calls); the `done:true` line carries the finish reason and the counts.
 * An `{"error": …}` line (sent with HTTP 200 kept) ends the stream with an error.
 */
export class OllamaStreamDecoder implements StreamDecoder {
  private readonly lines = new NdjsonDecoder();
  private sentRole = false;
  private toolCallCount = 0;
  private finished = false;
  /** An error met after other events in the same read: those go out first, the error on the next call. */
  private pendingError: GatewayError | undefined;

  constructor(private readonly context: TranslationContext) {}

  push(bytes: Uint8Array): StreamEvent[] {
    return this.translate(() => this.lines.push(bytes));
  }

  end(): StreamEvent[] {
    return this.translate(() => this.lines.end());
  }

  private translate(read: () => unknown[]): StreamEvent[] {
    if (this.pendingError) throw this.pendingError;
    let values: unknown[];
    try {
      values = read();
    } catch (error) {
      if (error instanceof NdjsonFormatError)
        throw new UpstreamError(
          502,
          'upstream_bad_response',
          `${this.context.provider.name} sent a broken stream: ${error.message}.`,
        );
      throw error;
    }
    const out: StreamEvent[] = [];
    for (const value of values) {
      if (this.finished) break;
      try {
        if (!value || typeof value !== 'object')
          throw new UpstreamError(
            502,
            'upstream_bad_response',
            `${this.context.provider.name} sent a stream line that is not an object.`,
          );
        this.translateObject(value as OllamaChatObject, out);
      } catch (error) {
        if (!(error instanceof GatewayError) || out.length === 0) throw error;
        this.pendingError = error;
        break;
      }
    }
    return out;
  }

  private translateObject(object: OllamaChatObject, out: StreamEvent[]): void {
    if (object.error !== undefined) {
      const message = typeof object.error === 'string' ? object.error : JSON.stringify(object.error);
      throw new UpstreamError(502, 'upstream_stream_error', `${this.context.provider.name}: ${message}`);
    }
    const delta: Delta = {};
    if (!this.sentRole) {
      delta.role = 'assistant';
      this.sentRole = true;
    }
    const content = object.message?.content ?? object.response;
    if (content) delta.content = content;
    if (object.message?.thinking) delta.reasoning = object.message.thinking;
    const toolCalls = convertOllamaToolCalls(object, this.context);
    if (toolCalls.length > 0) {
      delta.tool_calls = toolCalls.map((call) => ({ index: this.toolCallCount++, ...call }));
    }
    if (Object.keys(delta).length > 0) out.push(this.chunk(delta, null));
    if (object.done) {
      out.push(this.chunk({}, mapOllamaFinishReason(object.done_reason, this.toolCallCount > 0)));
      const usage = convertOllamaUsage(object);
      if (usage) out.push({ type: 'usage', usage });
      this.finished = true;
      out.push({ type: 'done' });
    }
  }

  private chunk(delta: Delta, finishReason: string | null): StreamEvent {
    return {
      type: 'chunk',
      chunk: {
        id: this.context.completionId,
        object: 'chat.completion.chunk',
        created: this.context.created,
        model: this.context.publicModel,
        choices: [{ index: 0, delta, finish_reason: finishReason }],
      },
    };
  }
}

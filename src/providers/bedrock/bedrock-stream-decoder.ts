import { GatewayError, UpstreamError } from '../../shared/errors.js';
import type { ChatCompletionChunk } from '../../shared/openai-types.js';
import {
  AwsEventStreamDecoder,
  EventStreamFormatError,
  type EventStreamMessage,
} from '../framing/aws-event-stream-decoder.js';
import type { StreamDecoder, StreamEvent, TranslationContext } from '../provider-adapter.js';
import { mapBedrockStreamException } from './bedrock-error.js';
import type { BedrockUsage } from './bedrock-types.js';
import { convertBedrockUsage } from './convert-bedrock-usage.js';
import { JSON_MODE_TOOL_NAME } from './convert-to-bedrock-request.js';
import { mapBedrockStopReason } from './map-bedrock-stop-reason.js';

type Delta = ChatCompletionChunk['choices'][number]['delta'];

/** What a Converse content block turned into on our side. */
type BlockKind = { kind: 'tool'; toolIndex: number } | { kind: 'json' };

interface ConverseStreamPayload {
  role?: string;
  contentBlockIndex?: number;
  start?: { toolUse?: { toolUseId?: string; name?: string } };
  delta?: {
    text?: string;
    toolUse?: { input?: string };
    reasoningContent?: { text?: string; signature?: string; redactedContent?: string };
  };
  stopReason?: string;
  usage?: BedrockUsage;
  message?: string;
}

/**
 * ConverseStream (binary event stream) → OpenAI chunks. Text and reasoning deltas map one to
 * one; a toolUse block opens a tool call (its index counted among tool calls only) and its
 * input string deltas become argument deltas; messageStop carries the finish reason, and the
 * trailing `metadata` event the usage, after which the answer is complete. An exception frame
 * ends the stream with an error in our envelope.
 */
export class BedrockStreamDecoder implements StreamDecoder {
  private readonly frames = new AwsEventStreamDecoder();
  private readonly blocks = new Map<number, BlockKind>();
  private toolCount = 0;
  private jsonMode = false;
  private finished = false;
  /** An error met after other events in the same read: those go out first, the error on the next call. */
  private pendingError: GatewayError | undefined;

  constructor(private readonly context: TranslationContext) {}

  push(bytes: Uint8Array): StreamEvent[] {
    return this.translate(() => this.frames.push(bytes));
  }

  end(): StreamEvent[] {
    return this.translate(() => this.frames.end());
  }

  private translate(read: () => EventStreamMessage[]): StreamEvent[] {
    if (this.pendingError) throw this.pendingError;
    let messages: EventStreamMessage[];
    try {
      messages = read();
    } catch (error) {
      if (error instanceof EventStreamFormatError) {
        throw new UpstreamError(
          502,
          'upstream_bad_response',
          `${this.context.provider.name} sent a broken event stream: ${error.message}.`,
          { cause: error },
        );
      }
      throw error;
    }
    const out: StreamEvent[] = [];
    for (const message of messages) {
      if (this.finished) break;
      try {
        this.translateMessage(message, out);
      } catch (error) {
        if (!(error instanceof GatewayError) || out.length === 0) throw error;
        this.pendingError = error;
        break;
      }
    }
    return out;
  }

  private translateMessage(message: EventStreamMessage, out: StreamEvent[]): void {
    const messageType = message.headers[':message-type'];
    const payload = this.parsePayload(message);
    if (messageType === 'exception') {
      throw mapBedrockStreamException(
        String(message.headers[':exception-type'] ?? 'exception'),
        payload.message ?? '',
        this.context.provider.name,
      );
    }
    if (messageType === 'error') {
      const code = String(message.headers[':error-code'] ?? 'error');
      throw mapBedrockStreamException(
        code,
        String(message.headers[':error-message'] ?? ''),
        this.context.provider.name,
      );
    }
    const blockIndex = payload.contentBlockIndex ?? 0;
    switch (message.headers[':event-type']) {
      case 'messageStart':
        out.push(this.chunk({ role: 'assistant', content: '' }));
        break;
      case 'contentBlockStart': {
        const toolUse = payload.start?.toolUse;
        if (!toolUse) break;
        if (toolUse.name === JSON_MODE_TOOL_NAME) {
          this.jsonMode = true;
          this.blocks.set(blockIndex, { kind: 'json' });
          break;
        }
        const toolIndex = this.toolCount++;
        this.blocks.set(blockIndex, { kind: 'tool', toolIndex });
        out.push(
          this.chunk({
            tool_calls: [
              {
                index: toolIndex,
                id: toolUse.toolUseId ?? '',
                type: 'function',
                function: { name: toolUse.name ?? '', arguments: '' },
              },
            ],
          }),
        );
        break;
      }
      case 'contentBlockDelta': {
        const delta = payload.delta ?? {};
        const block = this.blocks.get(blockIndex);
        if (typeof delta.text === 'string') out.push(this.chunk({ content: delta.text }));
        else if (typeof delta.reasoningContent?.text === 'string')
          out.push(this.chunk({ reasoning: delta.reasoningContent.text }));
        else if (typeof delta.toolUse?.input === 'string') {
          if (block?.kind === 'json') out.push(this.chunk({ content: delta.toolUse.input }));
          else if (block?.kind === 'tool')
            out.push(
              this.chunk({ tool_calls: [{ index: block.toolIndex, function: { arguments: delta.toolUse.input } }] }),
            );
        }
        // Reasoning signatures and redacted reasoning have no OpenAI counterpart.
        break;
      }
      case 'messageStop':
        out.push(this.chunk({}, mapBedrockStopReason(payload.stopReason, this.jsonMode)));
        break;
      case 'metadata':
        if (payload.usage) out.push({ type: 'usage', usage: convertBedrockUsage(payload.usage) });
        this.finished = true;
        out.push({ type: 'done' });
        break;
      default:
        break;
    }
  }

  private parsePayload(message: EventStreamMessage): ConverseStreamPayload {
    if (message.payload.length === 0) return {};
    try {
      const parsed = JSON.parse(new TextDecoder().decode(message.payload)) as unknown;
      if (parsed && typeof parsed === 'object') return parsed as ConverseStreamPayload;
    } catch (error) {
      if (error instanceof GatewayError) throw error;
    }
    throw new UpstreamError(
      502,
      'upstream_bad_response',
      `${this.context.provider.name} sent a stream event that is not a JSON object.`,
    );
  }

  private chunk(delta: Delta, finishReason: string | null = null): StreamEvent {
    const chunk: ChatCompletionChunk = {
      id: this.context.completionId,
      object: 'chat.completion.chunk',
      created: this.context.created,
      model: this.context.publicModel,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    };
    return { type: 'chunk', chunk };
  }
}

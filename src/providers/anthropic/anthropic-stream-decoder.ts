import { UpstreamError } from '../../shared/errors.js';
import type { ChatCompletionChunk } from '../../shared/openai-types.js';
import { SseDecoder, type SseEvent } from '../framing/sse-decoder.js';
import type { StreamDecoder, StreamEvent, TranslationContext } from '../provider-adapter.js';
import { createChunk } from '../shared/openai-chunk.js';
import { parseUpstreamJson } from '../shared/parse-upstream-json.js';
import type { AnthropicUsage } from './anthropic-types.js';
import { mapAnthropicStreamError } from './anthropic-error.js';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason.js';
import { mapAnthropicUsage, mergeAnthropicUsage } from './map-anthropic-usage.js';

type BlockKind = 'text' | 'thinking' | 'tool' | 'json' | 'ignored';
type Delta = ChatCompletionChunk['choices'][number]['delta'];
/** The fields of a content block or a delta the decoder reads; the rest of the event is ignored. */
interface BlockFields {
  type?: string;
  text?: string;
  thinking?: string;
  partial_json?: string;
  id?: string;
  name?: string;
  stop_reason?: string | null;
}
/** An Anthropic stream event, as far as the decoder reads it (errors go to mapAnthropicStreamError). */
interface Payload {
  type?: string;
  index?: unknown;
  message?: { usage?: AnthropicUsage };
  usage?: AnthropicUsage;
  content_block?: BlockFields;
  delta?: BlockFields;
  error?: { type?: unknown; message?: unknown };
}

/**
 * Anthropic Messages SSE → OpenAI chunks. Each content block is tracked by its index: text and
 * thinking deltas become `content` / `reasoning`, a client tool_use becomes a tool call whose
 * argument fragments (input_json_delta) are passed on as they come, the JSON-answer tool
 * streams as content, and server tools (web search) stay inside. `message_delta` carries the
 * stop reason and cumulative usage, `message_stop` ends the answer, `event: error` fails it.
 */
export class AnthropicStreamDecoder implements StreamDecoder {
  private readonly sse = new SseDecoder();
  private readonly blocks = new Map<number, { kind: BlockKind; toolIndex: number; sentArguments: boolean }>();
  private usage: AnthropicUsage = {};
  private toolCallCount = 0;
  private answeredWithJsonTool = false;
  private finished = false;

  constructor(
    private readonly context: TranslationContext,
    private readonly jsonToolName?: string,
  ) {}

  push(bytes: Uint8Array): StreamEvent[] {
    return this.translate(this.sse.push(bytes));
  }

  end(): StreamEvent[] {
    return this.translate(this.sse.end());
  }

  private translate(events: SseEvent[]): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const event of events) {
      if (this.finished) break;
      if (event.data === '') continue;
      const payload = parseUpstreamJson(event.data, this.context.provider.name, 'a stream event') as Payload;
      if (event.event === 'error' || payload.type === 'error')
        throw mapAnthropicStreamError(payload, this.context.provider.name);
      this.translateEvent(payload, out);
    }
    return out;
  }

  private translateEvent(payload: Payload, out: StreamEvent[]): void {
    switch (payload.type) {
      case 'message_start':
        this.usage = mergeAnthropicUsage(this.usage, payload.message?.usage);
        out.push({ type: 'usage', usage: mapAnthropicUsage(this.usage) });
        this.emit(out, { role: 'assistant', content: '' });
        return;
      case 'content_block_start':
        this.startBlock(this.requireIndex(payload), payload.content_block ?? {}, out);
        return;
      case 'content_block_delta':
        this.applyDelta(this.requireIndex(payload), payload.delta ?? {}, out);
        return;
      case 'content_block_stop': {
        // A tool with no arguments streams only an empty fragment; clients parse arguments, so they get "{}".
        const block = this.blocks.get(this.requireIndex(payload));
        if (block?.kind === 'tool' && !block.sentArguments)
          this.emit(out, { tool_calls: [{ index: block.toolIndex, function: { arguments: '{}' } }] });
        return;
      }
      case 'message_delta':
        this.usage = mergeAnthropicUsage(this.usage, payload.usage);
        out.push({ type: 'usage', usage: mapAnthropicUsage(this.usage) });
        if (payload.delta?.stop_reason) {
          const onlyJsonAnswer = this.answeredWithJsonTool && this.toolCallCount === 0;
          this.emit(out, {}, mapAnthropicStopReason(payload.delta.stop_reason, onlyJsonAnswer));
        }
        return;
      case 'message_stop':
        this.finished = true;
        out.push({ type: 'done' });
        return;
      default:
        // ping, and event types added after this was written carry nothing for the client.
        return;
    }
  }

  private startBlock(index: number, block: BlockFields, out: StreamEvent[]): void {
    if (block.type === 'text') {
      this.blocks.set(index, { kind: 'text', toolIndex: -1, sentArguments: false });
      if (block.text) this.emit(out, { content: block.text });
    } else if (block.type === 'thinking') {
      this.blocks.set(index, { kind: 'thinking', toolIndex: -1, sentArguments: false });
      if (block.thinking) this.emit(out, { reasoning: block.thinking });
    } else if (block.type === 'tool_use' && this.jsonToolName && block.name === this.jsonToolName) {
      this.answeredWithJsonTool = true;
      this.blocks.set(index, { kind: 'json', toolIndex: -1, sentArguments: false });
    } else if (block.type === 'tool_use') {
      const toolIndex = this.toolCallCount++;
      this.blocks.set(index, { kind: 'tool', toolIndex, sentArguments: false });
      this.emit(out, {
        tool_calls: [
          {
            index: toolIndex,
            id: String(block.id),
            type: 'function',
            function: { name: String(block.name), arguments: '' },
          },
        ],
      });
    } else {
      this.blocks.set(index, { kind: 'ignored', toolIndex: -1, sentArguments: false });
    }
  }

  private applyDelta(index: number, delta: BlockFields, out: StreamEvent[]): void {
    const block = this.blocks.get(index);
    if (!block) {
      throw new UpstreamError(
        502,
        'upstream_bad_response',
        `${this.context.provider.name} sent a delta for content block ${index}, which never started.`,
      );
    }
    if (delta.type === 'text_delta' && block.kind === 'text' && delta.text) {
      this.emit(out, { content: String(delta.text) });
    } else if (delta.type === 'thinking_delta' && block.kind === 'thinking' && delta.thinking) {
      this.emit(out, { reasoning: String(delta.thinking) });
    } else if (delta.type === 'input_json_delta' && delta.partial_json) {
      if (block.kind === 'tool') {
        block.sentArguments = true;
        this.emit(out, {
          tool_calls: [{ index: block.toolIndex, function: { arguments: String(delta.partial_json) } }],
        });
      } else if (block.kind === 'json') this.emit(out, { content: String(delta.partial_json) });
    }
    // signature_delta and citations_delta have no OpenAI chunk field.
  }

  private requireIndex(payload: Payload): number {
    if (typeof payload.index !== 'number') {
      throw new UpstreamError(
        502,
        'upstream_bad_response',
        `${this.context.provider.name} sent a ${String(payload.type)} event without an index.`,
      );
    }
    return payload.index;
  }

  private emit(
    out: StreamEvent[],
    delta: Delta,
    finishReason: ChatCompletionChunk['choices'][number]['finish_reason'] = null,
  ): void {
    out.push({ type: 'chunk', chunk: createChunk(this.context, delta, finishReason) });
  }
}

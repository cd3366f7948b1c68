import type { ChatCompletionChunk, Usage } from '../../shared/openai-types.js';
import { messageStopReason, messageUsage } from './chat-to-message.js';
import { anthropicErrorBody } from './anthropic-envelope.js';
import type { GatewayError } from '../../shared/errors.js';

export type MessagesEvent = { type: string; [field: string]: unknown };

/**
 * Chat chunks → Anthropic's stream: message_start, ping, then per content block
 * content_block_start, content_block_delta (text_delta, thinking_delta, input_json_delta)…,
 * content_block_stop, and finally message_delta (stop_reason, usage) and message_stop.
 */
export class MessagesStreamTranslator {
  private index = -1;
  private open: 'text' | 'thinking' | 'tool' | null = null;
  private readonly toolBlocks = new Map<number, number>();
  private finishReason: string | null = null;

  constructor(
    private readonly id: string,
    private readonly model: string,
  ) {}

  start(): MessagesEvent[] {
    return [
      {
        type: 'message_start',
        message: {
          id: this.id,
          type: 'message',
          role: 'assistant',
          model: this.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 0, output_tokens: 0 },
        },
      },
      { type: 'ping' },
    ];
  }

  push(chunk: ChatCompletionChunk): MessagesEvent[] {
    const events: MessagesEvent[] = [];
    const choice = chunk.choices[0];
    if (!choice) return events;
    const delta = choice.delta ?? {};
    if (typeof delta.reasoning === 'string' && delta.reasoning !== '') {
      if (this.open !== 'thinking')
        events.push(...this.openBlock('thinking', { type: 'thinking', thinking: '', signature: '' }));
      events.push({
        type: 'content_block_delta',
        index: this.index,
        delta: { type: 'thinking_delta', thinking: delta.reasoning },
      });
    }
    if (typeof delta.content === 'string' && delta.content !== '') {
      if (this.open !== 'text') events.push(...this.openBlock('text', { type: 'text', text: '' }));
      events.push({
        type: 'content_block_delta',
        index: this.index,
        delta: { type: 'text_delta', text: delta.content },
      });
    }
    for (const call of delta.tool_calls ?? []) {
      if (!this.toolBlocks.has(call.index)) {
        events.push(
          ...this.openBlock('tool', {
            type: 'tool_use',
            id: call.id ?? `toolu_${this.id}_${call.index}`,
            name: call.function?.name ?? '',
            input: {},
          }),
        );
        this.toolBlocks.set(call.index, this.index);
      }
      const fragment = call.function?.arguments ?? '';
      if (fragment !== '')
        events.push({
          type: 'content_block_delta',
          index: this.toolBlocks.get(call.index),
          delta: { type: 'input_json_delta', partial_json: fragment },
        });
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return events;
  }

  finish(usage: Usage | null): MessagesEvent[] {
    const events = this.closeBlock();
    const counted = messageUsage(usage);
    events.push({
      type: 'message_delta',
      delta: { stop_reason: messageStopReason(this.finishReason ?? 'stop', false), stop_sequence: null },
      usage: counted,
    });
    events.push({ type: 'message_stop' });
    return events;
  }

  fail(error: GatewayError): MessagesEvent[] {
    return [anthropicErrorBody(error)];
  }

  private openBlock(kind: 'text' | 'thinking' | 'tool', block: Record<string, unknown>): MessagesEvent[] {
    const events = this.closeBlock();
    this.index += 1;
    this.open = kind;
    events.push({ type: 'content_block_start', index: this.index, content_block: block });
    return events;
  }

  private closeBlock(): MessagesEvent[] {
    if (this.open === null) return [];
    this.open = null;
    return [{ type: 'content_block_stop', index: this.index }];
  }
}

import type { ChatCompletionChunk, Usage } from '../../shared/openai-types.js';
import type { GatewayError } from '../../shared/errors.js';
import { responseEnvelope, responseUsage, type ResponseMeta } from './chat-to-response.js';
import type { ResponseObject, ResponseOutputItem } from './responses-types.js';
import { restoreToolName } from './namespace-tools.js';

/** One Responses stream event (without sequence_number, which the writer adds). */
export type ResponsesEvent = { type: string; [field: string]: unknown };

type MessageItem = Extract<ResponseOutputItem, { type: 'message' }>;
type CallItem = Extract<ResponseOutputItem, { type: 'function_call' }>;
type ReasoningItem = Extract<ResponseOutputItem, { type: 'reasoning' }>;

/**
 * Chat chunks → the Responses stream's documented event sequence: response.created,
 * response.in_progress, then per output item output_item.added, (content_part.added,
 * output_text.delta…, output_text.done, content_part.done | function_call_arguments.delta…,
 * function_call_arguments.done), output_item.done, and finally response.completed (or
 * response.incomplete). Pure apart from the injected item ids.
 */
export class ResponsesStreamTranslator {
  private readonly output: ResponseOutputItem[] = [];
  private open: { item: MessageItem | ReasoningItem; index: number } | null = null;
  /** Function calls by their chat tool_call index. */
  private readonly calls = new Map<number, { item: CallItem; index: number }>();
  private finishReason: string | null = null;

  constructor(private readonly meta: ResponseMeta) {}

  start(): ResponsesEvent[] {
    const response = responseEnvelope(this.meta, 'in_progress', [], null, null);
    return [
      { type: 'response.created', response },
      { type: 'response.in_progress', response },
    ];
  }

  push(chunk: ChatCompletionChunk): ResponsesEvent[] {
    const events: ResponsesEvent[] = [];
    const choice = chunk.choices[0];
    if (!choice) return events;
    const delta = choice.delta ?? {};
    if (typeof delta.reasoning === 'string' && delta.reasoning !== '') {
      if (this.open?.item.type !== 'reasoning') {
        events.push(...this.closeOpen());
        const item: ReasoningItem = {
          type: 'reasoning',
          id: this.meta.itemId('rs_'),
          summary: [],
          content: [{ type: 'reasoning_text', text: '' }],
        };
        this.open = { item, index: this.add(item) };
        events.push({
          type: 'response.output_item.added',
          output_index: this.open.index,
          item: { ...item, content: [] },
        });
        events.push({
          type: 'response.content_part.added',
          item_id: item.id,
          output_index: this.open.index,
          content_index: 0,
          part: { type: 'reasoning_text', text: '' },
        });
      }
      const item = this.open.item as ReasoningItem;
      item.content![0].text += delta.reasoning;
      events.push({
        type: 'response.reasoning_text.delta',
        item_id: item.id,
        output_index: this.open.index,
        content_index: 0,
        delta: delta.reasoning,
      });
    }
    if (typeof delta.content === 'string' && delta.content !== '') {
      if (this.open?.item.type !== 'message') {
        events.push(...this.closeOpen());
        const item: MessageItem = {
          type: 'message',
          id: this.meta.itemId('msg_'),
          status: 'in_progress',
          role: 'assistant',
          content: [],
        };
        this.open = { item, index: this.add(item) };
        events.push({
          type: 'response.output_item.added',
          output_index: this.open.index,
          item: { ...item, content: [] },
        });
        item.content.push({ type: 'output_text', text: '', annotations: [], logprobs: [] });
        events.push({
          type: 'response.content_part.added',
          item_id: item.id,
          output_index: this.open.index,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
        });
      }
      const item = this.open.item as MessageItem;
      item.content[0].text += delta.content;
      events.push({
        type: 'response.output_text.delta',
        item_id: item.id,
        output_index: this.open.index,
        content_index: 0,
        delta: delta.content,
        logprobs: [],
      });
    }
    for (const call of delta.tool_calls ?? []) {
      let entry = this.calls.get(call.index);
      if (!entry) {
        events.push(...this.closeOpen());
        const item: CallItem = {
          type: 'function_call',
          id: this.meta.itemId('fc_'),
          call_id: call.id ?? this.meta.itemId('call_'),
          ...restoreToolName(this.meta.namespaces, call.function?.name ?? ''),
          arguments: '',
          status: 'in_progress',
        };
        entry = { item, index: this.add(item) };
        this.calls.set(call.index, entry);
        events.push({ type: 'response.output_item.added', output_index: entry.index, item: { ...item } });
      }
      const fragment = call.function?.arguments ?? '';
      if (fragment !== '') {
        entry.item.arguments += fragment;
        events.push({
          type: 'response.function_call_arguments.delta',
          item_id: entry.item.id,
          output_index: entry.index,
          delta: fragment,
        });
      }
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return events;
  }

  /** The closing events and the final Response (to store). */
  finish(usage: Usage | null): { events: ResponsesEvent[]; response: ResponseObject } {
    const events = this.closeOpen();
    for (const { item, index } of this.calls.values()) {
      item.status = 'completed';
      events.push({
        type: 'response.function_call_arguments.done',
        item_id: item.id,
        output_index: index,
        name: item.name,
        ...(item.namespace ? { namespace: item.namespace } : {}),
        arguments: item.arguments,
      });
      events.push({ type: 'response.output_item.done', output_index: index, item: { ...item } });
    }
    this.calls.clear();
    const response = responseEnvelope(this.meta, 'completed', this.output, responseUsage(usage), this.finishReason);
    events.push({ type: response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', response });
    return { events, response };
  }

  /** A failure after the stream started: the `error` event, then response.failed. */
  fail(error: GatewayError): ResponsesEvent[] {
    const response = responseEnvelope(this.meta, 'failed', this.output, null, null);
    response.error = { code: 'server_error', message: error.message };
    return [
      { type: 'error', code: error.code, message: error.message, param: error.param },
      { type: 'response.failed', response },
    ];
  }

  private add(item: ResponseOutputItem): number {
    this.output.push(item);
    return this.output.length - 1;
  }

  private closeOpen(): ResponsesEvent[] {
    if (!this.open) return [];
    const { item, index } = this.open;
    this.open = null;
    if (item.type === 'reasoning') {
      const text = item.content![0].text;
      item.status = 'completed';
      return [
        { type: 'response.reasoning_text.done', item_id: item.id, output_index: index, content_index: 0, text },
        {
          type: 'response.content_part.done',
          item_id: item.id,
          output_index: index,
          content_index: 0,
          part: { type: 'reasoning_text', text },
        },
        { type: 'response.output_item.done', output_index: index, item: { ...item } },
      ];
    }
    item.status = 'completed';
    const part = item.content[0];
    return [
      {
        type: 'response.output_text.done',
        item_id: item.id,
        output_index: index,
        content_index: 0,
        text: part.text,
        logprobs: [],
      },
      {
        type: 'response.content_part.done',
        item_id: item.id,
        output_index: index,
        content_index: 0,
        part: { ...part },
      },
      {
        type: 'response.output_item.done',
        output_index: index,
        item: { ...item, content: item.content.map((entry) => ({ ...entry })) },
      },
    ];
  }
}

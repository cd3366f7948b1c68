import type { ChatCompletion, ChatMessage, Usage } from '../../shared/openai-types.js';
import { copyCost } from '../engine/answer-cost.js';
import { flatToolName, restoreToolName, type NamespaceMap } from './namespace-tools.js';
import type { ResponseObject, ResponseOutputItem, ResponseUsage, ResponsesRequest } from './responses-types.js';

/** Everything a Response needs that is not in the chat answer; ids injected so translation stays pure. */
export interface ResponseMeta {
  id: string;
  createdAt: number;
  model: string;
  request: ResponsesRequest;
  store: boolean;
  /** Makes item ids (msg_…, fc_…, rs_…). */
  itemId: (prefix: string) => string;
  /** Namespace tools offered flat: their calls are given back split. */
  namespaces?: NamespaceMap;
}

export function responseUsage(usage: Usage | null | undefined): ResponseUsage | null {
  if (!usage) return null;
  return copyCost<ResponseUsage>(
    {
      input_tokens: usage.prompt_tokens,
      input_tokens_details: {
        cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
        cache_write_tokens: usage.prompt_tokens_details?.cache_write_tokens ?? 0,
      },
      output_tokens: usage.completion_tokens,
      output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
      total_tokens: usage.total_tokens,
    },
    usage,
  );
}

/** The Response around `output`: the request's settings echoed as OpenAI does. */
export function responseEnvelope(
  meta: ResponseMeta,
  status: ResponseObject['status'],
  output: ResponseOutputItem[],
  usage: ResponseUsage | null,
  finishReason: string | null,
): ResponseObject {
  const request = meta.request;
  const format = request.text?.format ?? { type: 'text' };
  const incomplete =
    finishReason === 'length' ? 'max_output_tokens' : finishReason === 'content_filter' ? 'content_filter' : null;
  const text = output
    .flatMap((item) => (item.type === 'message' ? item.content.map((part) => part.text) : []))
    .join('');
  return {
    id: meta.id,
    object: 'response',
    created_at: meta.createdAt,
    completed_at: status === 'in_progress' ? null : meta.createdAt,
    status: status === 'completed' && incomplete ? 'incomplete' : status,
    error: null,
    incomplete_details: status !== 'in_progress' && incomplete ? { reason: incomplete } : null,
    instructions: typeof request.instructions === 'string' ? request.instructions : null,
    max_output_tokens: request.max_output_tokens ?? null,
    model: meta.model,
    output,
    output_text: text,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: request.reasoning?.summary ?? null },
    store: meta.store,
    temperature: request.temperature ?? 1,
    text: { format },
    tool_choice: request.tool_choice ?? 'auto',
    tools: (request.tools ?? []).map((tool) =>
      tool.type === 'function'
        ? {
            type: 'function',
            name: tool.name,
            description: tool.description ?? null,
            parameters: tool.parameters ?? null,
            strict: tool.strict ?? null,
          }
        : tool,
    ),
    top_p: request.top_p ?? 1,
    truncation: 'disabled',
    ...(usage ? { usage } : {}),
    ...(typeof request.user === 'string' ? { user: request.user } : {}),
    metadata: request.metadata ?? {},
  };
}

/** A whole chat answer → the Response's output items (reasoning, message, function calls). */
export function chatToResponse(completion: ChatCompletion, meta: ResponseMeta): ResponseObject {
  const choice = completion.choices[0];
  const message = choice?.message;
  const output: ResponseOutputItem[] = [];
  if (typeof message?.reasoning === 'string' && message.reasoning !== '')
    output.push({
      type: 'reasoning',
      id: meta.itemId('rs_'),
      summary: [],
      content: [{ type: 'reasoning_text', text: message.reasoning }],
    });
  const text = typeof message?.content === 'string' ? message.content : '';
  if (text !== '' || !message?.tool_calls?.length) {
    output.push({
      type: 'message',
      id: meta.itemId('msg_'),
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
    });
  }
  for (const call of message?.tool_calls ?? []) {
    output.push({
      type: 'function_call',
      id: meta.itemId('fc_'),
      call_id: call.id,
      ...restoreToolName(meta.namespaces, call.function.name),
      arguments: call.function.arguments,
      status: 'completed',
    });
  }
  return responseEnvelope(meta, 'completed', output, responseUsage(completion.usage), choice?.finish_reason ?? null);
}

/** The assistant turn a Response adds to the stored conversation (what previous_response_id continues). */
export function assistantTurnOf(output: ResponseOutputItem[]): ChatMessage | null {
  let text = '';
  const calls: NonNullable<ChatMessage['tool_calls']> = [];
  for (const item of output) {
    if (item.type === 'message') text += item.content.map((part) => part.text).join('');
    if (item.type === 'function_call')
      calls.push({
        id: item.call_id,
        type: 'function',
        function: {
          name: item.namespace ? flatToolName(item.namespace, item.name) : item.name,
          arguments: item.arguments,
        },
      });
  }
  if (text === '' && calls.length === 0) return null;
  return { role: 'assistant', content: text === '' ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
}

import type { ChatCompletion, FinishReason, ToolCall, Usage } from '../../shared/openai-types.js';
import type { TranslationContext } from '../provider-adapter.js';

/** One `/api/chat` object (a whole answer, or one NDJSON line of a stream). */
export interface OllamaChatObject {
  message?: {
    role?: string;
    content?: string;
    thinking?: string;
    tool_calls?: Array<{ function?: { name?: string; arguments?: unknown } }>;
  };
  /** `/api/generate` lines carry the text here; accepted so both endpoints' lines read alike. */
  response?: string;
  done?: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
  error?: unknown;
}

/** Ollama gives tool calls no id; ids are made by the injected generator, stable within the answer. */
export function convertOllamaToolCalls(object: OllamaChatObject, context: TranslationContext): ToolCall[] {
  return (object.message?.tool_calls ?? []).map((call) => ({
    id: context.generateId('call_'),
    type: 'function',
    function: {
      name: call.function?.name ?? '',
      arguments:
        typeof call.function?.arguments === 'string'
          ? call.function.arguments
          : JSON.stringify(call.function?.arguments ?? {}),
    },
  }));
}

export function mapOllamaFinishReason(doneReason: string | undefined, sawToolCalls: boolean): FinishReason {
  if (doneReason === 'length') return 'length';
  return sawToolCalls ? 'tool_calls' : 'stop';
}

export function convertOllamaUsage(object: OllamaChatObject): Usage | undefined {
  if (object.prompt_eval_count === undefined && object.eval_count === undefined) return undefined;
  const prompt = object.prompt_eval_count ?? 0;
  const completion = object.eval_count ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

export function buildOllamaCompletion(object: OllamaChatObject, context: TranslationContext): ChatCompletion {
  const toolCalls = convertOllamaToolCalls(object, context);
  const message: ChatCompletion['choices'][number]['message'] = {
    role: 'assistant',
    content: object.message?.content ?? object.response ?? '',
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (object.message?.thinking) message.reasoning = object.message.thinking;
  const completion: ChatCompletion = {
    id: context.completionId,
    object: 'chat.completion',
    created: context.created,
    model: context.publicModel,
    choices: [
      {
        index: 0,
        message,
        finish_reason: mapOllamaFinishReason(object.done_reason, toolCalls.length > 0),
        logprobs: null,
      },
    ],
  };
  const usage = convertOllamaUsage(object);
  if (usage) completion.usage = usage;
  return completion;
}

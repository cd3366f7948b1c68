import type { ChatCompletion, ChatCompletionChunk, Usage } from '../../shared/openai-types.js';
import { copyCost } from '../engine/answer-cost.js';
import type { GeminiApiPart, GeminiApiResponse, GeminiApiUsage } from './gemini-api-types.js';

/** Chat finish reasons → Gemini's. */
function geminiFinishReason(reason: string | null | undefined): string | undefined {
  if (!reason) return undefined;
  if (reason === 'length') return 'MAX_TOKENS';
  if (reason === 'content_filter') return 'SAFETY';
  return 'STOP';
}

function geminiUsage(usage: Usage | null | undefined): GeminiApiUsage | undefined {
  if (!usage) return undefined;
  const thoughts = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  return copyCost<GeminiApiUsage>(
    {
      promptTokenCount: usage.prompt_tokens,
      // Gemini counts thoughts apart from the candidates; chat counts reasoning inside completion tokens.
      candidatesTokenCount: usage.completion_tokens - thoughts,
      totalTokenCount: usage.total_tokens,
      ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
      ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
    },
    usage,
  );
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text || '{}') as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A whole chat completion → a GenerateContentResponse. */
export function chatToGemini(completion: ChatCompletion, responseId: string): GeminiApiResponse {
  return {
    candidates: completion.choices.map((choice) => {
      const parts: GeminiApiPart[] = [];
      if (typeof choice.message.reasoning === 'string' && choice.message.reasoning !== '')
        parts.push({ text: choice.message.reasoning, thought: true });
      if (typeof choice.message.content === 'string' && choice.message.content !== '')
        parts.push({ text: choice.message.content });
      for (const call of choice.message.tool_calls ?? [])
        parts.push({
          functionCall: { id: call.id, name: call.function.name, args: parseArguments(call.function.arguments) },
        });
      if (parts.length === 0) parts.push({ text: '' });
      const finishReason = geminiFinishReason(choice.finish_reason);
      return {
        content: { role: 'model' as const, parts },
        ...(finishReason ? { finishReason } : {}),
        index: choice.index,
      };
    }),
    ...(completion.usage ? { usageMetadata: geminiUsage(completion.usage) } : {}),
    modelVersion: completion.model,
    responseId,
  };
}

/**
 * Chat chunks → streamGenerateContent chunks. Text and thoughts go out as they come; a function
 * call is sent whole once its arguments are complete (Gemini sends calls whole), at the finish.
 * The chunk with the finish reason is held until the usage is known: Gemini's last chunk carries
 * both (a chunk after it without a finish reason is not what its clients read as the end).
 */
export class GeminiStreamTranslator {
  private readonly calls = new Map<number, { id?: string; name: string; arguments: string }>();
  private readonly finishing: GeminiApiResponse[] = [];

  constructor(
    private readonly model: string,
    private readonly responseId: string,
  ) {}

  push(chunk: ChatCompletionChunk): GeminiApiResponse[] {
    const out: GeminiApiResponse[] = [];
    for (const choice of chunk.choices) {
      const parts: GeminiApiPart[] = [];
      const delta = choice.delta;
      if (typeof delta.reasoning === 'string' && delta.reasoning !== '')
        parts.push({ text: delta.reasoning, thought: true });
      if (typeof delta.content === 'string' && delta.content !== '') parts.push({ text: delta.content });
      for (const call of delta.tool_calls ?? []) {
        const entry = this.calls.get(call.index) ?? { name: '', arguments: '' };
        if (call.id) entry.id = call.id;
        if (call.function?.name) entry.name += call.function.name;
        entry.arguments += call.function?.arguments ?? '';
        this.calls.set(call.index, entry);
      }
      const finishReason = geminiFinishReason(choice.finish_reason);
      if (finishReason) {
        for (const call of this.calls.values())
          parts.push({
            functionCall: {
              ...(call.id ? { id: call.id } : {}),
              name: call.name,
              args: parseArguments(call.arguments),
            },
          });
        this.calls.clear();
      }
      if (parts.length > 0 || finishReason)
        (finishReason ? this.finishing : out).push({
          candidates: [
            {
              content: { role: 'model', parts: parts.length > 0 ? parts : [{ text: '' }] },
              ...(finishReason ? { finishReason } : {}),
              index: choice.index,
            },
          ],
          modelVersion: this.model,
          responseId: this.responseId,
        });
    }
    return out;
  }

  /**
   * The last chunks: those with a finish reason, the last carrying the usage of the whole answer
   * (Gemini repeats it; here it is sent once, at the end). Also called with null when the stream
   * failed, so what finished before the failure still goes out ahead of the error.
   */
  finish(usage: Usage | null): GeminiApiResponse[] {
    const usageMetadata = geminiUsage(usage);
    const finishing = this.finishing.splice(0);
    if (finishing.length > 0) {
      if (usageMetadata) finishing[finishing.length - 1]!.usageMetadata = usageMetadata;
      return finishing;
    }
    if (!usageMetadata) return [];
    return [
      {
        candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, index: 0 }],
        usageMetadata,
        modelVersion: this.model,
        responseId: this.responseId,
      },
    ];
  }
}

import type { ChatCompletion, ToolCall } from '../../shared/openai-types.js';
import type { TranslationContext } from '../provider-adapter.js';
import { decodeUtf8, parseUpstreamJson } from '../shared/parse-upstream-json.js';
import { mapGeminiError } from './gemini-error.js';
import { encodeGeminiToolCallId } from './gemini-tool-call-id.js';
import type { GeminiCandidate, GeminiResponse } from './gemini-types.js';
import { isPromptBlocked, mapGeminiFinishReason } from './map-gemini-finish-reason.js';
import { mapGeminiUsage } from './map-gemini-usage.js';

/**
 * A whole generateContent answer → an OpenAI chat.completion: one choice per candidate, thought
 * parts as `reasoning`, function calls as tool calls with ids we make (carrying Gemini 3's
 * thoughtSignature, see gemini-tool-call-id.ts). A prompt Gemini blocked answers with empty
 * content and finish_reason content_filter.
 */
export function parseGeminiResponse(body: Uint8Array, context: TranslationContext): ChatCompletion {
  const text = decodeUtf8(body);
  const parsed = parseUpstreamJson(text, context.provider.name, 'a response') as GeminiResponse;
  if (parsed.error) throw mapGeminiError(200, text, {}, context.provider.name);
  const candidates = parsed.candidates ?? [];
  const choices: ChatCompletion['choices'] =
    candidates.length > 0
      ? candidates.map((candidate, position) => convertCandidate(candidate, candidate.index ?? position, context))
      : [
          {
            index: 0,
            message: { role: 'assistant', content: '', refusal: null },
            finish_reason: isPromptBlocked(parsed.promptFeedback?.blockReason) ? 'content_filter' : 'stop',
            logprobs: null,
          },
        ];
  return {
    id: context.completionId,
    object: 'chat.completion',
    created: context.created,
    model: context.publicModel,
    choices,
    usage: mapGeminiUsage(parsed.usageMetadata ?? {}),
  };
}

function convertCandidate(
  candidate: GeminiCandidate,
  index: number,
  context: TranslationContext,
): ChatCompletion['choices'][number] {
  let content = '';
  let reasoning = '';
  const toolCalls: ToolCall[] = [];
  for (const part of candidate.content?.parts ?? []) {
    if (part.functionCall?.name) {
      const id = encodeGeminiToolCallId(part.functionCall.id ?? context.generateId('call_'), part.thoughtSignature);
      toolCalls.push({
        id,
        type: 'function',
        function: { name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}) },
      });
    } else if (typeof part.text === 'string') {
      if (part.thought) reasoning += part.text;
      else content += part.text;
    }
  }
  const message: ChatCompletion['choices'][number]['message'] = {
    role: 'assistant',
    content: content || (toolCalls.length > 0 ? null : ''),
    refusal: null,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoning) message.reasoning = reasoning;
  return {
    index,
    message,
    finish_reason: mapGeminiFinishReason(candidate.finishReason, toolCalls.length > 0),
    logprobs: null,
  };
}

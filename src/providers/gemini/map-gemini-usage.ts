import type { Usage } from '../../shared/openai-types.js';
import type { GeminiUsageMetadata } from './gemini-types.js';

/**
 * Gemini usageMetadata → OpenAI usage. Thinking tokens are billed as output, so they count in
 * completion_tokens (as OpenAI counts reasoning tokens) and are also reported apart; tokens of
 * tool prompts (search grounding) count as prompt. Streams send running totals: the last wins.
 */
export function mapGeminiUsage(metadata: GeminiUsageMetadata): Usage {
  const promptTokens = (metadata.promptTokenCount ?? 0) + (metadata.toolUsePromptTokenCount ?? 0);
  const reasoningTokens = metadata.thoughtsTokenCount ?? 0;
  const completionTokens = (metadata.candidatesTokenCount ?? 0) + reasoningTokens;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: metadata.cachedContentTokenCount ?? 0 },
    completion_tokens_details: { reasoning_tokens: reasoningTokens },
  };
}

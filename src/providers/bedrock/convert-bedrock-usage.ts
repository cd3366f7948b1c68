import type { Usage } from '../../shared/openai-types.js';
import type { BedrockUsage } from './bedrock-types.js';

/**
 * Converse usage → OpenAI usage. Bedrock counts cache reads and writes apart from inputTokens;
 * OpenAI's prompt_tokens includes cached tokens and names them in prompt_tokens_details, so the
 * three are added up and the cache figures reported as details.
 */
export function convertBedrockUsage(usage: BedrockUsage): Usage {
  const cacheRead = usage.cacheReadInputTokens ?? 0;
  const cacheWrite = usage.cacheWriteInputTokens ?? 0;
  const promptTokens = (usage.inputTokens ?? 0) + cacheRead + cacheWrite;
  const completionTokens = usage.outputTokens ?? 0;
  const converted: Usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
  if (cacheRead > 0 || cacheWrite > 0) {
    converted.prompt_tokens_details = { cached_tokens: cacheRead, cache_write_tokens: cacheWrite };
  }
  return converted;
}

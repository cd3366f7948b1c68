import type { Usage } from '../../shared/openai-types.js';
import type { AnthropicUsage } from './anthropic-types.js';

/**
 * Anthropic usage → OpenAI usage. Anthropic's input_tokens excludes cached input; OpenAI's
 * prompt_tokens includes it, so cache reads and writes are added in and also reported apart
 * (cached_tokens, cache_write_tokens) for pricing. Web searches are counted for per-search prices.
 */
export function mapAnthropicUsage(usage: AnthropicUsage): Usage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const promptTokens = (usage.input_tokens ?? 0) + cacheRead + cacheWrite;
  const completionTokens = usage.output_tokens ?? 0;
  const mapped: Usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cacheRead, cache_write_tokens: cacheWrite },
  };
  const searches = usage.server_tool_use?.web_search_requests ?? 0;
  if (searches > 0) mapped.web_search_requests = searches;
  return mapped;
}

/** Stream usage arrives in parts (message_start, then cumulative message_delta); later fields replace earlier ones. */
export function mergeAnthropicUsage(previous: AnthropicUsage, next: AnthropicUsage | undefined): AnthropicUsage {
  if (!next) return previous;
  const merged: AnthropicUsage = { ...previous };
  for (const [key, value] of Object.entries(next)) {
    if (value !== null && value !== undefined) (merged as Record<string, unknown>)[key] = value;
  }
  return merged;
}

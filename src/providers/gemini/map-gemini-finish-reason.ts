import type { FinishReason } from '../../shared/openai-types.js';

/** Gemini finish reasons that mean the answer was blocked or cut by a content policy. */
const FILTERED = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/** Gemini finishReason (or a prompt blockReason) → OpenAI finish_reason. STOP after function calls is `tool_calls`. */
export function mapGeminiFinishReason(finishReason: string | undefined, hasToolCalls: boolean): FinishReason {
  if (finishReason === 'MAX_TOKENS') return 'length';
  if (finishReason && FILTERED.has(finishReason)) return 'content_filter';
  return hasToolCalls ? 'tool_calls' : 'stop';
}

/** A prompt Gemini refused to answer at all (promptFeedback.blockReason) ends as content_filter. */
export function isPromptBlocked(blockReason: string | undefined): boolean {
  return typeof blockReason === 'string' && blockReason !== 'BLOCK_REASON_UNSPECIFIED';
}

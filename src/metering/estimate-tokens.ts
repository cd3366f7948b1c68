import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { ChatCompletionRequest, ContentPart } from '../shared/openai-types.js';

/** Tokens a chat format adds per message and per reply (OpenAI's published counting rule). */
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_REPLY = 3;
/** A flat figure per image or file part: we cannot know the provider's tiling in advance. */
const TOKENS_PER_ATTACHMENT = 765;
/** Beyond this many characters counting costs more than it tells; use the character rule. */
const MAX_TOKENIZED_CHARACTERS = 200_000;

/**
 * The prompt's size in tokens, estimated with the o200k tokenizer. Used for the pre-request hold,
 * the tokens-per-minute reservation and when a provider reports no usage. Never for prices.
 */
export function estimatePromptTokens(request: ChatCompletionRequest): number {
  let total = TOKENS_PER_REPLY;
  for (const message of request.messages ?? []) {
    total += TOKENS_PER_MESSAGE + countText(message.role ?? '');
    if (message.name) total += countText(message.name) + 1;
    total += countContent(message.content);
    if (typeof message.reasoning === 'string') total += countText(message.reasoning);
    for (const call of message.tool_calls ?? [])
      total += countText(call.function?.name ?? '') + countText(call.function?.arguments ?? '') + 3;
  }
  if (request.tools && request.tools.length > 0) total += countText(JSON.stringify(request.tools));
  if (request.response_format?.json_schema) total += countText(JSON.stringify(request.response_format.json_schema));
  return total;
}

/** Output tokens when a provider reported none: about four characters a token for English. */
export function estimateOutputTokens(characters: number): number {
  return Math.ceil(Math.max(0, characters) / 4);
}

function countContent(content: string | ContentPart[] | null | undefined): number {
  if (typeof content === 'string') return countText(content);
  if (!Array.isArray(content)) return 0;
  let total = 0;
  for (const part of content) total += part.type === 'text' ? countText(part.text ?? '') : TOKENS_PER_ATTACHMENT;
  return total;
}

function countText(text: string): number {
  if (text.length === 0) return 0;
  if (text.length > MAX_TOKENIZED_CHARACTERS) return Math.ceil(text.length / 3);
  return countTokens(text);
}

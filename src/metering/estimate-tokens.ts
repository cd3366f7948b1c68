import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { ChatCompletionRequest, ContentPart } from '../shared/openai-types.js';

/** Tokens a chat format adds per message and per reply (OpenAI's published counting rule). */
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_REPLY = 3;
/** A flat figure per image or file part: we cannot know the provider's tiling in advance. */
const TOKENS_PER_ATTACHMENT = 765;
/**
 * Characters of one request run through the tokenizer; the rest is estimated from its UTF-8 size.
 * Tokenizing costs ~1 µs per 10 characters on the request path, and a hold or a rate-window
 * reservation needs a fair size, not an exact one (the settlement uses the provider's figures):
 * a 100,000-character prompt cost ~10 ms of CPU before this bound.
 */
const TOKENIZED_CHARACTERS = 16_000;
/** Bytes per token beyond the tokenized part: ~4 for English text (so this errs high), ~3 for CJK. */
const BYTES_PER_TOKEN = 3;

/**
 * The prompt's size in tokens, estimated with the o200k tokenizer. Used for the pre-request hold,
 * the tokens-per-minute reservation and when a provider reports no usage. Never for prices.
 */
export function estimatePromptTokens(request: ChatCompletionRequest): number {
  const counter = new TextCounter();
  const countText = (text: string) => counter.count(text);
  const countContent = (content: string | ContentPart[] | null | undefined): number => {
    if (typeof content === 'string') return countText(content);
    if (!Array.isArray(content)) return 0;
    let total = 0;
    for (const part of content) total += part.type === 'text' ? countText(part.text ?? '') : TOKENS_PER_ATTACHMENT;
    return total;
  };
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

/** Counts texts with the tokenizer until the request's budget of characters is spent, then by size. */
class TextCounter {
  private budget = TOKENIZED_CHARACTERS;

  count(text: string): number {
    if (text.length === 0) return 0;
    if (text.length <= this.budget) {
      this.budget -= text.length;
      return countTokens(text);
    }
    this.budget = 0;
    return Math.ceil(Buffer.byteLength(text, 'utf8') / BYTES_PER_TOKEN);
  }
}

import type { ChatCompletionRequest, ContentPart } from '../shared/openai-types.js';
import { countTokens } from '../shared/tokenizer.js';

/** Tokens a chat format adds per message and per reply (OpenAI's published counting rule). */
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_REPLY = 3;
/** A flat figure per image or file part: we cannot know the provider's tiling in advance. */
const TOKENS_PER_ATTACHMENT = 765;
/** UTF-8 bytes per token of the size rule: ~4 for English text (so this errs high), ~3 for CJK. */
const BYTES_PER_TOKEN = 3;
/**
 * Characters of one request run through the tokenizer; the rest is sized by the byte rule.
 * Tokenizing costs ~1 µs per 10 characters: a 100,000-character prompt took ~10 ms of CPU.
 */
const TOKENIZED_CHARACTERS = 16_000;

/**
 * The prompt's size for admission (the credit hold and the tokens-per-minute reservation),
 * from the UTF-8 size of its text: one token per three bytes, plus the per-message overhead.
 * Like OpenAI's own rate limiter, which counts from characters: admission needs a fair size
 * at once, not an exact count (the settlement uses the provider's figures and corrects the
 * reservation). It errs high for English, so a hold covers the request.
 */
export function estimatePromptSize(request: ChatCompletionRequest): number {
  return walkPrompt(request, sizeOfText);
}

/**
 * The prompt's tokens with the o200k tokenizer, for a request whose provider reported no usage
 * (what it is charged then). The first 16,000 characters are tokenized, the rest sized by bytes.
 */
export function estimatePromptTokens(request: ChatCompletionRequest): number {
  let budget = TOKENIZED_CHARACTERS;
  return walkPrompt(request, (text) => {
    if (text.length === 0) return 0;
    if (text.length > budget) {
      budget = 0;
      return sizeOfText(text);
    }
    budget -= text.length;
    return countTokens(text);
  });
}

/** Output tokens when a provider reported none: about four characters a token for English. */
export function estimateOutputTokens(characters: number): number {
  return Math.ceil(Math.max(0, characters) / 4);
}

function sizeOfText(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(Buffer.byteLength(text, 'utf8') / BYTES_PER_TOKEN);
}

/** Every text of a chat request counted with `count`, plus the chat format's overhead. */
function walkPrompt(request: ChatCompletionRequest, count: (text: string) => number): number {
  const countContent = (content: string | ContentPart[] | null | undefined): number => {
    if (typeof content === 'string') return count(content);
    if (!Array.isArray(content)) return 0;
    let total = 0;
    for (const part of content) total += part.type === 'text' ? count(part.text ?? '') : TOKENS_PER_ATTACHMENT;
    return total;
  };
  let total = TOKENS_PER_REPLY;
  for (const message of request.messages ?? []) {
    total += TOKENS_PER_MESSAGE + count(message.role ?? '');
    if (message.name) total += count(message.name) + 1;
    total += countContent(message.content);
    if (typeof message.reasoning === 'string') total += count(message.reasoning);
    for (const call of message.tool_calls ?? [])
      total += count(call.function?.name ?? '') + count(call.function?.arguments ?? '') + 3;
  }
  if (request.tools && request.tools.length > 0) total += count(JSON.stringify(request.tools));
  if (request.response_format?.json_schema) total += count(JSON.stringify(request.response_format.json_schema));
  return total;
}

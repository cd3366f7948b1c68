import { createRequire } from 'node:module';

let loaded: { countTokens(text: string): number } | undefined;

/**
 * Tokens of a text with the o200k tokenizer, loaded on first use: its vocabulary holds ~20 MB
 * of memory, which a gateway only needs when a provider leaves usage out (the chat estimate) or
 * an embeddings request is sized.
 */
export function countTokens(text: string): number {
  loaded ??= createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as {
    countTokens(text: string): number;
  };
  return loaded.countTokens(text);
}

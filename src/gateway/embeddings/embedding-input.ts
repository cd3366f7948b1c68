import { countTokens } from '../../shared/tokenizer.js';
import { InvalidRequestError } from '../../shared/errors.js';
import type { ChatCompletionRequest } from '../../shared/openai-types.js';
import type { EmbeddingInput } from '../../providers/embedding-adapter.js';
import type { EmbeddingsRequest } from './embeddings-request-schema.js';

/** The request's input as a list of texts or token arrays; empty strings are refused as OpenAI does. */
export function normalizeEmbeddingInput(request: EmbeddingsRequest): EmbeddingInput {
  const { input } = request;
  const base = { dimensions: request.dimensions, user: request.user };
  if (typeof input === 'string') {
    if (input === '') throw emptyInput('input');
    return { ...base, texts: [input], tokens: null };
  }
  if (typeof input[0] === 'number') return { ...base, texts: null, tokens: [input as number[]] };
  if (Array.isArray(input[0])) return { ...base, texts: null, tokens: input as number[][] };
  const texts = input as string[];
  const empty = texts.findIndex((text) => text === '');
  if (empty !== -1) throw emptyInput(`input[${empty}]`);
  return { ...base, texts, tokens: null };
}

function emptyInput(param: string): InvalidRequestError {
  return new InvalidRequestError(`Invalid '${param}': an empty string cannot be embedded.`, param, 'invalid_value');
}

/** Input tokens when the provider reports none (o200k estimate; token arrays count exactly). */
export function estimateEmbeddingTokens(input: EmbeddingInput): number {
  if (input.tokens) return input.tokens.reduce((sum, tokens) => sum + tokens.length, 0);
  return input.texts!.reduce(
    (sum, text) => sum + (text.length > 200_000 ? Math.ceil(text.length / 3) : countTokens(text)),
    0,
  );
}

/**
 * The shape metering's admission reads (a chat request): the input as one user message and one
 * output token, so the hold and the tpm reservation cover the embedding's input price.
 */
export function admissionRequestFor(request: EmbeddingsRequest, input: EmbeddingInput): ChatCompletionRequest {
  const content = input.texts ? input.texts.join('\n') : ' x'.repeat(estimateEmbeddingTokens(input));
  return { model: request.model, messages: [{ role: 'user', content }], max_tokens: 1 };
}

/** float32 little-endian bytes, base64: OpenAI's `encoding_format: "base64"`. */
export function encodeBase64Vector(vector: number[]): string {
  const floats = new Float32Array(vector);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
}

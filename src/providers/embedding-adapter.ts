/**
 * The contract between the embeddings endpoint and one wire protocol. Like ProviderAdapter it is
 * pure translation: the core does the HTTP calls and hands the adapter bytes.
 */
import type { ProviderConfig } from '../config/gateway-config.js';
import type { GatewayError } from '../shared/errors.js';
import type { UpstreamHttpRequest } from './provider-adapter.js';

/** A validated /v1/embeddings request, its input normalised to a list. */
export interface EmbeddingInput {
  /** Texts to embed, or null when the client sent token arrays. */
  texts: string[] | null;
  /** Token arrays (OpenAI's pre-tokenised input), or null for texts. */
  tokens: number[][] | null;
  dimensions?: number;
  user?: string;
}

export interface EmbeddingContext {
  provider: ProviderConfig;
  upstreamModel: string;
  /** Unix seconds (request signing). */
  created: number;
}

export interface EmbeddingResult {
  /** One vector per input, in input order. */
  vectors: number[][];
  /** Input tokens the provider reported; null when it reports none (Gemini, Cohere): the core estimates. */
  promptTokens: number | null;
}

export interface EmbeddingAdapter {
  readonly type: string;
  /** Why this provider cannot serve the input (token arrays, dimensions), or null. */
  refuse(input: EmbeddingInput, context: EmbeddingContext): string | null;
  /** The upstream calls, sent one after another (Titan embeds one text per call). */
  buildRequests(input: EmbeddingInput, context: EmbeddingContext): Promise<UpstreamHttpRequest[]>;
  /** The 2xx bodies of those calls, in the same order → vectors. */
  parseResponses(bodies: Uint8Array[], input: EmbeddingInput, context: EmbeddingContext): EmbeddingResult;
  mapError(
    status: number,
    body: Uint8Array,
    headers: Record<string, string | string[] | undefined>,
    context: EmbeddingContext,
  ): GatewayError;
}

export type EmbeddingRegistry = ReadonlyMap<string, EmbeddingAdapter>;

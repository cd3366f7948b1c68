import { UpstreamError } from '../../shared/errors.js';

/**
 * The fields the embedding adapters read, over every provider's answer. Not checked here: each
 * adapter tests the ones it uses (Array.isArray, typeof) and expectVectors checks the vectors.
 */
interface EmbeddingJson {
  data?: Array<{ index?: number; embedding?: unknown }>;
  embeddings?: Array<{ values?: unknown }> | { float?: unknown };
  embedding?: unknown;
  inputTextTokenCount?: unknown;
  prompt_eval_count?: unknown;
  usage?: { prompt_tokens?: unknown };
}

/** An upstream embeddings body as JSON, or a 502 naming the provider. */
export function parseEmbeddingJson(body: Uint8Array, providerName: string): EmbeddingJson | null {
  try {
    return JSON.parse(new TextDecoder().decode(body)) as EmbeddingJson | null;
  } catch {
    throw new UpstreamError(
      502,
      'upstream_bad_response',
      `${providerName} answered embeddings with a body that is not JSON.`,
    );
  }
}

/** Checks that a value is a list of number vectors, `count` of them. */
export function expectVectors(value: unknown, count: number, providerName: string): number[][] {
  if (
    !Array.isArray(value) ||
    value.length !== count ||
    !value.every((vector) => Array.isArray(vector) && vector.every((item) => typeof item === 'number'))
  ) {
    throw new UpstreamError(
      502,
      'upstream_bad_response',
      `${providerName} answered embeddings without ${count} number vector(s).`,
    );
  }
  return value as number[][];
}

export function jsonRequestHeaders(extra: Record<string, string>): Record<string, string> {
  return { ...extra, 'content-type': 'application/json' };
}

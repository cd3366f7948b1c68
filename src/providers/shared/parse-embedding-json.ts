import { UpstreamError } from '../../shared/errors.js';

/** An upstream embeddings body as JSON, or a 502 naming the provider. */
export function parseEmbeddingJson(body: Uint8Array, providerName: string): any {
  try {
    return JSON.parse(new TextDecoder().decode(body));
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

/**
 * The fake upstream's POST /v1/embeddings: deterministic vectors (the same text always gives the
 * same vector), `dimensions` honoured (8 by default), one token a word.
 */
export function mockEmbeddingVector(text: string, dimensions: number): number[] {
  let state = 2166136261;
  for (let index = 0; index < text.length; index++) state = Math.imul(state ^ text.charCodeAt(index), 16777619) >>> 0;
  const vector: number[] = [];
  for (let index = 0; index < dimensions; index++) {
    state = Math.imul(state ^ (state >>> 15), 2246822507) >>> 0;
    // Multiples of 1/1024 are exact in float32, so base64 round trips compare equal.
    vector.push(((state % 2048) - 1024) / 1024);
  }
  return vector;
}

/** The answer body for an OpenAI embeddings request, or an error message for a bad one. */
export function buildEmbeddingsAnswer(body: Record<string, unknown>): { status: number; body: unknown } {
  const input = body.input;
  const items: unknown[] = typeof input === 'string' ? [input] : Array.isArray(input) ? input : [];
  const texts =
    typeof items[0] === 'number'
      ? [items.join(' ')]
      : items.map((item) => (Array.isArray(item) ? item.join(' ') : item));
  if (texts.length === 0 || !texts.every((text) => typeof text === 'string')) {
    return {
      status: 400,
      body: {
        error: {
          message: "'input' must be a string or an array",
          type: 'invalid_request_error',
          param: 'input',
          code: null,
        },
      },
    };
  }
  const requested = body.dimensions;
  const dimensions = typeof requested === 'number' && Number.isInteger(requested) && requested > 0 ? requested : 8;
  const tokens = (texts as string[]).reduce((sum, text) => sum + text.split(/\s+/).filter(Boolean).length, 0);
  return {
    status: 200,
    body: {
      object: 'list',
      data: (texts as string[]).map((text, index) => ({
        object: 'embedding',
        index,
        embedding: mockEmbeddingVector(text, dimensions),
      })),
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    },
  };
}

import type { EmbeddingAdapter } from '../embedding-adapter.js';
import { expectVectors, jsonRequestHeaders, parseEmbeddingJson } from '../shared/parse-embedding-json.js';
import { mapGeminiError } from './gemini-error.js';

/**
 * Gemini's models/{model}:batchEmbedContents: one request entry per text, `outputDimensionality`
 * for `dimensions`. Gemini reports no token counts, so usage is estimated by the core.
 */
export const geminiEmbeddings: EmbeddingAdapter = {
  type: 'gemini',
  refuse: (input) => (input.tokens ? 'token-array input is not accepted by Gemini embeddings; send text' : null),
  async buildRequests(input, context) {
    const model = context.upstreamModel.replace(/^models\//, '');
    const headers = jsonRequestHeaders(context.provider.headers);
    if (context.provider.apiKey) headers['x-goog-api-key'] = context.provider.apiKey;
    const requests = input.texts!.map((text) => {
      const entry: Record<string, unknown> = { model: `models/${model}`, content: { parts: [{ text }] } };
      if (input.dimensions !== undefined) entry.outputDimensionality = input.dimensions;
      return entry;
    });
    return [
      {
        url: `${context.provider.baseUrl}/models/${model}:batchEmbedContents`,
        method: 'POST',
        headers,
        body: JSON.stringify({ requests }),
        warnings: [],
      },
    ];
  },
  parseResponses([body], input, context) {
    const parsed = parseEmbeddingJson(body, context.provider.name);
    const embeddings = Array.isArray(parsed?.embeddings) ? parsed.embeddings : [];
    const vectors = expectVectors(
      embeddings.map((item: { values?: unknown }) => item?.values),
      input.texts!.length,
      context.provider.name,
    );
    return { vectors, promptTokens: null };
  },
  mapError: (status, body, headers, context) =>
    mapGeminiError(status, new TextDecoder().decode(body), headers, context.provider.name),
};

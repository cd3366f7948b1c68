import type { EmbeddingAdapter } from '../embedding-adapter.js';
import { expectVectors, jsonRequestHeaders, parseEmbeddingJson } from '../shared/parse-embedding-json.js';
import { mapOpenAIError } from '../openai/openai-error.js';

/** Ollama's native POST /api/embed: `input` a string list, `prompt_eval_count` as the token count. */
export const ollamaEmbeddings: EmbeddingAdapter = {
  type: 'ollama',
  refuse: (input) => (input.tokens ? 'token-array input is not accepted by Ollama embeddings; send text' : null),
  async buildRequests(input, context) {
    const headers = jsonRequestHeaders(context.provider.headers);
    if (context.provider.apiKey) headers.authorization = `Bearer ${context.provider.apiKey}`;
    const root = context.provider.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
    const body: Record<string, unknown> = { model: context.upstreamModel, input: input.texts };
    if (input.dimensions !== undefined) body.dimensions = input.dimensions;
    return [{ url: `${root}/api/embed`, method: 'POST', headers, body: JSON.stringify(body), warnings: [] }];
  },
  parseResponses([body], input, context) {
    const parsed = parseEmbeddingJson(body, context.provider.name);
    const vectors = expectVectors(parsed?.embeddings, input.texts!.length, context.provider.name);
    const count = parsed?.prompt_eval_count;
    return { vectors, promptTokens: typeof count === 'number' ? count : null };
  },
  mapError: (status, body, headers, context) => mapOpenAIError(status, body, headers, context.provider.name),
};

import type { ProviderConfig } from '../../config/gateway-config.js';
import type { EmbeddingAdapter } from '../embedding-adapter.js';
import { expectVectors, jsonRequestHeaders, parseEmbeddingJson } from '../shared/parse-embedding-json.js';
import { mapOpenAIError } from './openai-error.js';

/**
 * OpenAI's POST /embeddings, which every OpenAI-compatible preset speaks. Floats are always asked
 * for: the gateway encodes base64 itself, so every provider answers the same way.
 */
export function openAICompatibleEmbeddings(
  type: string,
  url: (provider: ProviderConfig, model: string) => string,
  authHeader: 'authorization' | 'api-key',
): EmbeddingAdapter {
  return {
    type,
    refuse: () => null,
    async buildRequests(input, context) {
      const headers = jsonRequestHeaders(context.provider.headers);
      if (context.provider.apiKey)
        headers[authHeader] =
          authHeader === 'authorization' ? `Bearer ${context.provider.apiKey}` : context.provider.apiKey;
      const body: Record<string, unknown> = {
        model: context.upstreamModel,
        input: input.texts ?? input.tokens,
        encoding_format: 'float',
      };
      if (input.dimensions !== undefined) body.dimensions = input.dimensions;
      if (input.user !== undefined) body.user = input.user;
      return [
        {
          url: url(context.provider, context.upstreamModel),
          method: 'POST',
          headers,
          body: JSON.stringify(body),
          warnings: [],
        },
      ];
    },
    parseResponses([body], input, context) {
      const parsed = parseEmbeddingJson(body, context.provider.name);
      const count = (input.texts ?? input.tokens)!.length;
      const data = Array.isArray(parsed?.data) ? [...parsed.data] : [];
      // Answers carry an index; order by it rather than trusting the array's order.
      data.sort((a: { index?: number }, b: { index?: number }) => (a.index ?? 0) - (b.index ?? 0));
      const vectors = expectVectors(
        data.map((item: { embedding?: unknown }) => item.embedding),
        count,
        context.provider.name,
      );
      const promptTokens = parsed?.usage?.prompt_tokens;
      return { vectors, promptTokens: typeof promptTokens === 'number' ? promptTokens : null };
    },
    mapError: (status, body, headers, context) => mapOpenAIError(status, body, headers, context.provider.name),
  };
}

export const openAIEmbeddings = openAICompatibleEmbeddings(
  'openai',
  (provider) => `${provider.baseUrl}/embeddings`,
  'authorization',
);

import type { EmbeddingAdapter, EmbeddingContext, EmbeddingInput } from '../embedding-adapter.js';
import type { UpstreamHttpRequest } from '../provider-adapter.js';
import { UpstreamError } from '../../shared/errors.js';
import { expectVectors, parseEmbeddingJson } from '../shared/parse-embedding-json.js';
import { bedrockBaseUrl, resolveBedrockAuth } from './bedrock-credentials.js';
import { mapBedrockError } from './bedrock-error.js';
import { signAwsRequest } from './sign-aws-request.js';

/**
 * Bedrock InvokeModel for embedding models. Two body families, told apart by the model id:
 * Amazon Titan (`amazon.titan-embed-*`: one `inputText` per call, `inputTextTokenCount` back) and
 * Cohere (`cohere.embed-*`: `texts` in one call, no token count). Signed like Converse.
 */
function isCohere(upstreamModel: string): boolean {
  return /(^|\.)cohere\.embed/.test(upstreamModel);
}

async function invokeRequest(context: EmbeddingContext, body: string): Promise<UpstreamHttpRequest> {
  const auth = resolveBedrockAuth(context.provider);
  const url = `${bedrockBaseUrl(context.provider, auth.region)}/model/${encodeURIComponent(context.upstreamModel)}/invoke`;
  const headers: Record<string, string> = {
    ...context.provider.headers,
    'content-type': 'application/json',
    accept: 'application/json',
  };
  if (auth.kind === 'bearer') {
    headers.authorization = `Bearer ${auth.token}`;
    return { url, method: 'POST', headers, body, warnings: [] };
  }
  const signed = await signAwsRequest(
    { method: 'POST', url, headers, body },
    {
      credentials: auth.credentials,
      region: auth.region,
      service: 'bedrock',
      signingDate: new Date(context.created * 1000),
    },
  );
  return { url, method: 'POST', headers: signed, body, warnings: [] };
}

function titanBody(text: string, input: EmbeddingInput): string {
  const body: Record<string, unknown> = { inputText: text };
  if (input.dimensions !== undefined) body.dimensions = input.dimensions;
  return JSON.stringify(body);
}

function cohereBody(input: EmbeddingInput): string {
  const body: Record<string, unknown> = { texts: input.texts, input_type: 'search_document' };
  if (input.dimensions !== undefined) body.output_dimension = input.dimensions;
  return JSON.stringify(body);
}

export const bedrockEmbeddings: EmbeddingAdapter = {
  type: 'bedrock',
  refuse: (input) => (input.tokens ? 'token-array input is not accepted by Bedrock embeddings; send text' : null),
  async buildRequests(input, context) {
    if (isCohere(context.upstreamModel)) return [await invokeRequest(context, cohereBody(input))];
    return Promise.all(input.texts!.map((text) => invokeRequest(context, titanBody(text, input))));
  },
  parseResponses(bodies, input, context) {
    const name = context.provider.name;
    if (isCohere(context.upstreamModel)) {
      const parsed = parseEmbeddingJson(bodies[0], name);
      // embedding_types answers {float: [[…]]}; the default answers the list itself.
      const list = Array.isArray(parsed?.embeddings) ? parsed.embeddings : parsed?.embeddings?.float;
      return { vectors: expectVectors(list, input.texts!.length, name), promptTokens: null };
    }
    let promptTokens = 0;
    const vectors = bodies.map((body) => {
      const parsed = parseEmbeddingJson(body, name);
      if (!Array.isArray(parsed?.embedding))
        throw new UpstreamError(502, 'upstream_bad_response', `${name} answered embeddings without an embedding.`);
      if (typeof parsed.inputTextTokenCount === 'number') promptTokens += parsed.inputTextTokenCount;
      return parsed.embedding as unknown[];
    });
    return { vectors: expectVectors(vectors, input.texts!.length, name), promptTokens };
  },
  mapError: (status, body, headers, context) => mapBedrockError(status, body, headers, context.provider.name),
};

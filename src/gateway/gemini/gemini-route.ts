import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { Type } from '@sinclair/typebox';
import { InvalidRequestError, NotFoundError, type GatewayError } from '../../shared/errors.js';
import { isModelAllowed } from '../../routing/api-key-record.js';
import type { ModelConfig } from '../../config/gateway-config.js';
import type { ChatHandlerDeps } from '../chat-completions-handler.js';
import { runEmbeddings, type EmbeddingsHandlerDeps } from '../embeddings/embeddings-handler.js';
import { countTokensNatively, estimateInputTokens } from '../engine/count-tokens.js';
import type { GeminiApiRequest } from './gemini-api-types.js';
import { geminiErrorHandler } from './gemini-envelope.js';
import { handleGenerateContent } from './gemini-generate-handler.js';
import { geminiToChat } from './gemini-to-chat.js';
import { checkGeminiRequest } from './check-gemini-request.js';

/** Gemini clients send the key as x-goog-api-key or ?key=; the gateway's auth reads a bearer token. */
function acceptGoogleKey(request: FastifyRequest, _reply: unknown, done: () => void): void {
  if (!request.headers.authorization) {
    const header = request.headers['x-goog-api-key'];
    const query: unknown = request.query;
    const fromQuery = typeof query === 'object' && query !== null && 'key' in query ? query.key : undefined;
    const key = typeof header === 'string' && header !== '' ? header : typeof fromQuery === 'string' ? fromQuery : '';
    if (key !== '') request.headers.authorization = `Bearer ${key}`;
  }
  done();
}

/** A `*` route's parameter: what the wildcard matched (Fastify always sets it). */
type WildcardParams = { '*': string };

/** `gemini-2.5-flash:generateContent`, `google/gemini-2.5-pro:streamGenerateContent` → model and method. */
function modelAndMethod(wildcard: string): { model: string; method: string } {
  const path = decodeURIComponent(wildcard).replace(/^models\//, '');
  const colon = path.lastIndexOf(':');
  if (colon <= 0) throw new NotFoundError(`Unknown method on '${path}'.`, 'unknown_url', 'model');
  return { model: path.slice(0, colon), method: path.slice(colon + 1) };
}

function geminiModel(model: ModelConfig) {
  const contextLengths = model.endpoints.map((endpoint) => endpoint.contextLength ?? 0);
  const outputs = model.endpoints.map((endpoint) => endpoint.maxOutputTokens ?? 0);
  const embeds = model.outputModalities.includes('embeddings');
  return {
    name: `models/${model.id}`,
    baseModelId: model.id,
    version: '001',
    displayName: model.name,
    inputTokenLimit: Math.max(0, ...contextLengths),
    outputTokenLimit: Math.max(0, ...outputs),
    supportedGenerationMethods: embeds
      ? ['embedContent', 'batchEmbedContents']
      : ['generateContent', 'streamGenerateContent', 'countTokens'],
  };
}

interface EmbedRequest {
  model?: string;
  content?: { parts?: Array<{ text?: string }> };
  outputDimensionality?: number;
}

const textOfContent = (request: EmbedRequest) => (request.content?.parts ?? []).map((part) => part.text ?? '').join('');

/**
 * The Gemini API (`/v1beta`): generateContent, streamGenerateContent (SSE), countTokens,
 * embedContent, batchEmbedContents and the model list, on any model of the gateway; model ids
 * may contain `/`; errors in Gemini's envelope.
 */
export function registerGeminiRoutes(
  app: FastifyInstance,
  deps: { chat: ChatHandlerDeps; embeddings: EmbeddingsHandlerDeps },
  authenticate: onRequestHookHandler,
  toGatewayError: (error: unknown) => GatewayError,
): void {
  const common = {
    onRequest: [acceptGoogleKey, authenticate],
    errorHandler: geminiErrorHandler(toGatewayError),
  };
  app.post<{ Params: WildcardParams }>('/v1beta/models/*', {
    ...common,
    schema: {
      summary: 'Gemini API: generateContent, streamGenerateContent, countTokens, embedContent, batchEmbedContents',
      description:
        'POST /v1beta/models/{model}:{method}. Key in x-goog-api-key, ?key= or Authorization. Native to Gemini endpoints, translated for the others; streamGenerateContent answers SSE (alt=sse).',
      tags: ['v1'],
      body: Type.Object({}, { additionalProperties: true }),
    },
    handler: async (request, reply) => {
      const { model, method } = modelAndMethod(request.params['*']);
      const body = (request.body ?? {}) as Record<string, unknown>;
      switch (method) {
        case 'generateContent':
        case 'streamGenerateContent':
          return handleGenerateContent(deps.chat, request, reply, model, method === 'streamGenerateContent');
        case 'countTokens': {
          const counted = await countTokensNatively(deps.chat, request, model, {
            api: 'gemini-generate-content',
            action: 'countTokens',
            body,
            clientHeaders: {},
          });
          if (counted) return reply.type('application/json').send(Buffer.from(counted.bytes));
          const inner = (body.generateContentRequest ?? body) as GeminiApiRequest;
          checkGeminiRequest(inner);
          const { chat } = geminiToChat(model, inner, { stream: false });
          return { totalTokens: estimateInputTokens(chat) };
        }
        case 'embedContent':
        case 'batchEmbedContents': {
          const single = method === 'embedContent';
          const requests = single ? [body as EmbedRequest] : ((body.requests as EmbedRequest[] | undefined) ?? []);
          if (requests.length === 0)
            throw new InvalidRequestError(
              'requests must hold at least one request.',
              'requests',
              'missing_required_parameter',
            );
          const dimensions = requests[0].outputDimensionality;
          return runEmbeddings(
            deps.embeddings,
            request,
            reply,
            {
              model,
              input: single ? textOfContent(requests[0]) : requests.map(textOfContent),
              ...(typeof dimensions === 'number' ? { dimensions } : {}),
            },
            (result, _candidate, _usage, headers) => {
              const vectors = result.vectors.map((values) => ({ values }));
              reply.headers(headers).send(single ? { embedding: vectors[0] } : { embeddings: vectors });
            },
          );
        }
        default:
          throw new NotFoundError(`Method '${method}' is not served by the gateway.`, 'unknown_url', 'model');
      }
    },
  });
  app.get('/v1beta/models', {
    ...common,
    schema: { summary: 'Gemini API: list models', tags: ['v1'] },
    handler: async (request) => {
      const key = request.apiKey;
      const models = deps.chat.directory.list().filter((model) => !key || isModelAllowed(key, model.id));
      return { models: models.map(geminiModel) };
    },
  });
  app.get<{ Params: WildcardParams }>('/v1beta/models/*', {
    ...common,
    schema: { summary: 'Gemini API: get a model', tags: ['v1'] },
    handler: async (request) => {
      const id = decodeURIComponent(request.params['*']).replace(/^models\//, '');
      const model = deps.chat.directory.get(id);
      if (!model || (request.apiKey && !isModelAllowed(request.apiKey, id)))
        throw new NotFoundError(`The model '${id}' does not exist.`, 'model_not_found', 'model');
      return geminiModel(model);
    },
  });
}

import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ModelConfig } from '../config/gateway-config.js';
import { isModelAllowed } from '../routing/api-key-record.js';
import { unitsToDecimal } from '../shared/decimal.js';
import type { ModelDirectory } from '../routing/model-directory.js';

/** A `*` route's parameter: what the wildcard matched (Fastify always sets it). */
type WildcardParams = { '*': string };
import { NotFoundError } from '../shared/errors.js';

const ModelSchema = Type.Object({
  id: Type.String(),
  object: Type.Literal('model'),
  created: Type.Integer(),
  owned_by: Type.String(),
  display_name: Type.String(),
  input_modalities: Type.Array(Type.String()),
  output_modalities: Type.Array(Type.String()),
  context_length: Type.Union([Type.Integer(), Type.Null()]),
  pricing: Type.Object(
    { prompt: Type.String(), completion: Type.String() },
    {
      additionalProperties: Type.String(),
      description: 'USD per token (per request / per search where named), as decimal strings.',
    },
  ),
});

const ModelListSchema = Type.Object({ object: Type.Literal('list'), data: Type.Array(ModelSchema) });

/** USD per token, as an exact decimal string, from micro-USD per million tokens. */
function perToken(micros: number): string {
  return unitsToDecimal(micros, 12);
}

function toApiModel(model: ModelConfig) {
  const cheapest = [...model.endpoints].sort(
    (a, b) =>
      a.pricing.promptMicros + a.pricing.completionMicros - (b.pricing.promptMicros + b.pricing.completionMicros),
  )[0];
  const contextLengths = model.endpoints
    .map((endpoint) => endpoint.contextLength)
    .filter((value): value is number => value !== null);
  const pricing: Record<string, string> = {
    prompt: perToken(cheapest.pricing.promptMicros),
    completion: perToken(cheapest.pricing.completionMicros),
  };
  if (cheapest.pricing.cacheReadMicros !== null) pricing.input_cache_read = perToken(cheapest.pricing.cacheReadMicros);
  if (cheapest.pricing.cacheWriteMicros !== null)
    pricing.input_cache_write = perToken(cheapest.pricing.cacheWriteMicros);
  if (cheapest.pricing.perRequestMicros) pricing.request = unitsToDecimal(cheapest.pricing.perRequestMicros, 6);
  if (cheapest.pricing.perSearchMicros) pricing.web_search = unitsToDecimal(cheapest.pricing.perSearchMicros, 6);
  return {
    id: model.id,
    object: 'model' as const,
    created: model.created,
    owned_by: model.author,
    display_name: model.name,
    input_modalities: model.inputModalities,
    output_modalities: model.outputModalities,
    context_length: contextLengths.length > 0 ? Math.max(...contextLengths) : null,
    pricing,
  };
}

/** GET /v1/models: every routable model, or those the presented key may use. */
export function registerModelsRoute(
  app: FastifyInstance,
  directory: ModelDirectory,
  authenticateOptional: onRequestHookHandler,
): void {
  // The directory may hold hundreds of catalog models: present them once per directory version
  // (it changes only on a config reload).
  const present = () => directory.list().map((model) => ({ id: model.id, body: toApiModel(model) }));
  let presented = present();
  let presentedVersion = directory.version;
  app.get('/v1/models', {
    schema: {
      summary: 'List models (OpenAI-compatible)',
      description: 'Answers with or without an API key; with a key, only the models it may use.',
      tags: ['v1'],
      response: { 200: ModelListSchema },
    },
    onRequest: authenticateOptional,
    handler: async (request) => {
      if (presentedVersion !== directory.version) {
        presented = present();
        presentedVersion = directory.version;
      }
      const key = request.apiKey;
      const data = key
        ? presented.filter((model) => isModelAllowed(key, model.id)).map((model) => model.body)
        : presented.map((model) => model.body);
      return { object: 'list' as const, data };
    },
  });

  // Model ids may contain slashes (acme/chat-1), hence the wildcard.
  app.get<{ Params: WildcardParams }>('/v1/models/*', {
    schema: { summary: 'Retrieve one model', tags: ['v1'], response: { 200: ModelSchema } },
    onRequest: authenticateOptional,
    handler: async (request) => {
      const id = decodeURIComponent(request.params['*']);
      const model = directory.get(id);
      if (!model || (request.apiKey && !isModelAllowed(request.apiKey, id))) {
        throw new NotFoundError(`The model '${id}' does not exist.`, 'model_not_found', 'model');
      }
      return toApiModel(model);
    },
  });
}

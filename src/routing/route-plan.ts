import type { ApiKeyRecord, DefaultModel } from './api-key-record.js';
import { isModelAllowed } from './api-key-record.js';
import type { ModelConfig } from '../config/gateway-config.js';
import { InvalidRequestError, NotFoundError, PermissionDeniedError } from '../shared/errors.js';
import type { ModelDirectory, RouteCandidate } from './model-directory.js';
import type { RequestRouting } from './provider-preferences.js';
import type { RoutingTemplateSource } from './routing-templates.js';

export interface PlanRouteInput {
  requestedModel: string;
  routing: RequestRouting;
  key: ApiKeyRecord | null;
  enableSearch: boolean;
  directory: ModelDirectory;
  templates: RoutingTemplateSource;
  /** Orders one model's endpoints (preferences, health-independent). */
  rank: (candidates: readonly RouteCandidate[]) => RouteCandidate[];
}

/**
 * The ordered candidates for one request (CONTRACT §4): models first, then each model's
 * endpoints in rank order.
 *
 * code mode (default): the requested model, then the request's `models` list, then the key's
 * default models. manual mode: the key's default models only, in priority order, whatever
 * `model` says. `allowed_models` filters every model, fallbacks included. With
 * `enable_search`, only endpoints that support search are kept.
 */
export function planRoute(input: PlanRouteInput): RouteCandidate[] {
  const { key, directory, routing } = input;
  const defaults = defaultModelsOf(key, input.templates);
  const manual = key?.routingMode === 'manual' && defaults.length > 0;
  const allowed = (modelId: string) => !key || isModelAllowed(key, modelId);
  const models: ModelConfig[] = [];
  const add = (model: ModelConfig | undefined) => {
    if (model && allowed(model.id) && !models.includes(model)) models.push(model);
  };

  if (!manual) {
    const requested = directory.get(input.requestedModel);
    if (!requested) {
      throw new NotFoundError(
        `The model '${input.requestedModel}' does not exist or is not served by any configured provider.`,
        'model_not_found',
        'model',
      );
    }
    if (!allowed(requested.id)) {
      throw new PermissionDeniedError(
        `This API key is not allowed to use the model '${input.requestedModel}'.`,
        'model_not_allowed',
        'model',
      );
    }
    if (input.enableSearch && !requested.endpoints.some((endpoint) => endpoint.supportsSearch)) {
      throw new InvalidRequestError(
        `The model '${requested.id}' does not support web search; remove 'enable_search' or pick a model that has it.`,
        'enable_search',
        'unsupported_parameter',
      );
    }
    add(requested);
    routing.models.forEach((modelId, index) => {
      const model = directory.get(modelId);
      if (!model)
        throw new InvalidRequestError(
          `Invalid 'models[${index}]': the model '${modelId}' does not exist.`,
          `models[${index}]`,
          'model_not_found',
        );
      add(model);
    });
  }
  // Default models the catalog no longer serves are skipped: the key outlives config changes.
  for (const fallback of defaults) add(directory.get(fallback.model_id));

  if (models.length === 0) {
    throw new PermissionDeniedError(
      "None of this API key's default models is available or allowed.",
      'model_not_allowed',
      'model',
    );
  }
  let searchCapable = 0;
  const candidates = models.flatMap((model) => {
    let endpoints = directory.candidatesFor(model);
    if (input.enableSearch) endpoints = endpoints.filter((candidate) => candidate.endpoint.supportsSearch);
    if (endpoints.length > 0) searchCapable++;
    return input.rank(endpoints);
  });
  if (input.enableSearch && searchCapable === 0) {
    throw new InvalidRequestError(
      "None of the models this request may use supports web search; remove 'enable_search'.",
      'enable_search',
      'unsupported_parameter',
    );
  }
  if (candidates.length === 0) {
    throw new InvalidRequestError(
      'No endpoint of the requested models matches the provider preferences (only, ignore, order with allow_fallbacks, max_price).',
      'provider',
      'no_endpoint_matches',
    );
  }
  return candidates;
}

/** The key's own default models, or those of its routing template when it stored none. */
function defaultModelsOf(key: ApiKeyRecord | null, templates: RoutingTemplateSource): DefaultModel[] {
  if (!key) return [];
  if (key.defaultModels.length > 0) return key.defaultModels;
  return key.templateId ? (templates.get(key.templateId)?.defaultModels ?? []) : [];
}

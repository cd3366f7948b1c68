import type { ApiKeyRecord } from '../accounts/keys/api-key-record.js';
import { isModelAllowed } from '../accounts/keys/api-key-record.js';
import { NotFoundError, PermissionDeniedError } from '../shared/errors.js';
import type { ModelDirectory, RouteCandidate } from './model-directory.js';

/**
 * The ordered candidates for one request (CONTRACT §4). code mode: the requested model, then
 * the key's default models as fallbacks; manual mode: the key's default models only.
 * allowed_models filters every candidate, fallbacks included.
 */
export function planRoute(requestedModel: string, key: ApiKeyRecord | null, directory: ModelDirectory): RouteCandidate[] {
  const modelIds: string[] = [];
  const manual = key?.routingMode === 'manual' && key.defaultModels.length > 0;
  if (!manual) {
    if (!directory.get(requestedModel)) {
      throw new NotFoundError(`The model '${requestedModel}' does not exist or is not served by any configured provider.`, 'model_not_found', 'model');
    }
    if (key && !isModelAllowed(key, requestedModel)) {
      throw new PermissionDeniedError(`This API key is not allowed to use the model '${requestedModel}'.`, 'model_not_allowed', 'model');
    }
    modelIds.push(requestedModel);
  }
  for (const fallback of key?.defaultModels ?? []) {
    if (!modelIds.includes(fallback.model_id) && (!key || isModelAllowed(key, fallback.model_id))) modelIds.push(fallback.model_id);
  }
  const candidates = modelIds.flatMap((id) => {
    const model = directory.get(id);
    return model ? directory.candidatesFor(model) : [];
  });
  if (candidates.length === 0) {
    throw manual
      ? new PermissionDeniedError('None of this API key\'s default models is available or allowed.', 'model_not_allowed', 'model')
      : new NotFoundError(`The model '${requestedModel}' has no available endpoint.`, 'model_not_found', 'model');
  }
  return candidates;
}

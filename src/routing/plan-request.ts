import type { ApiKeyRecord } from './api-key-record.js';
import type { ChatCompletionRequest } from '../shared/openai-types.js';
import type { ModelDirectory, RouteCandidate } from './model-directory.js';
import { parseRequestRouting } from './provider-preferences.js';
import { rankEndpoints } from './endpoint-ranking.js';
import { planRoute } from './route-plan.js';
import type { RoutingRuntime } from './routing-runtime.js';

/** The ordered candidates for one chat request: its routing parameters, the key's routing settings, the config. */
export function planRequest(
  body: ChatCompletionRequest,
  key: ApiKeyRecord | null,
  directory: ModelDirectory,
  routing: RoutingRuntime,
): RouteCandidate[] {
  const requestRouting = parseRequestRouting(body as unknown as Record<string, unknown>);
  return planRoute({
    requestedModel: body.model,
    routing: requestRouting,
    key,
    enableSearch: body.enable_search === true,
    directory,
    templates: routing.templates,
    rank: (candidates) =>
      rankEndpoints({
        candidates,
        preferences: requestRouting.preferences,
        figures: (endpoint) => routing.stats.figures(endpoint),
        random: routing.random,
      }),
  });
}

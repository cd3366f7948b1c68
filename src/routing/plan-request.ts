import type { ApiKeyRecord } from './api-key-record.js';
import type { ChatCompletionRequest } from '../shared/openai-types.js';
import type { ModelDirectory, RouteCandidate } from './model-directory.js';
import { parseRequestRouting } from './provider-preferences.js';
import { rankEndpoints } from './endpoint-ranking.js';
import { planRoute } from './route-plan.js';
import type { RoutingRuntime } from './routing-runtime.js';
import { affinityRandom } from './affinity-random.js';

/** The ordered candidates for one chat request: its routing parameters, the key's routing settings, the config. */
export function planRequest(
  body: ChatCompletionRequest,
  key: ApiKeyRecord | null,
  directory: ModelDirectory,
  routing: RoutingRuntime,
  /** A conversation's key (prompt_cache_key): its weighted endpoint choice falls the same way each time. */
  affinityKey?: string | null,
): RouteCandidate[] {
  const random = affinityKey ? affinityRandom(affinityKey) : routing.random;
  const requestRouting = parseRequestRouting(body);
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
        random,
      }),
  });
}

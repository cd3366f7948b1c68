import type { RouteCandidate } from './model-directory.js';

/**
 * Health and speed belong to an upstream deployment (provider + the model name it knows),
 * not to our public model id: two public ids served by the same deployment share its health.
 */
export function endpointKey(providerId: string, upstreamModel: string): string {
  return `${providerId}:${upstreamModel}`;
}

export function candidateKey(candidate: RouteCandidate): string {
  return endpointKey(candidate.provider.id, candidate.endpoint.upstreamModel);
}

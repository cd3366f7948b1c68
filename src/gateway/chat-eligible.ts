import { InvalidRequestError } from '../shared/errors.js';
import type { RouteCandidate } from '../routing/model-directory.js';

/** A model that only embeds (output_modalities [embeddings], no text) cannot answer a chat. */
function isEmbeddingOnlyModel(model: { outputModalities: string[] }): boolean {
  return model.outputModalities.includes('embeddings') && !model.outputModalities.includes('text');
}

/**
 * The planned candidates that can chat; none is a 400 naming the model, the mirror of /v1/embeddings'
 * `model_not_embedding` (an embedding model's upstream would otherwise answer 200 or a provider error).
 */
export function chatCandidates(planned: RouteCandidate[], requestedModel: string): RouteCandidate[] {
  const candidates = planned.filter((candidate) => !isEmbeddingOnlyModel(candidate.model));
  if (candidates.length === 0)
    throw new InvalidRequestError(
      `The model '${requestedModel}' only creates embeddings; use POST /v1/embeddings, or a chat model (output_modalities with "text" on /v1/models).`,
      'model',
      'model_not_chat',
    );
  return candidates;
}

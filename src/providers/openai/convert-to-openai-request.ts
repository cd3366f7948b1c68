import type { ChatCompletionRequest } from '../../shared/openai-types.js';
import type { TranslationContext } from '../provider-adapter.js';

/** Fields that steer the gateway itself and must not reach an upstream. */
// `usage` ({include: true}) asks the gateway for the cost in the answer: no upstream field.
const GATEWAY_ONLY_FIELDS = ['enable_search', 'models', 'provider', 'route', 'transforms', 'usage'] as const;

/**
 * The OpenAI-compatible request body: the client's request as sent (unknown parameters pass
 * through), with the upstream's model name, and stream usage always requested so metering
 * gets exact figures (the core drops the usage chunk when the client did not ask for it).
 */
export function convertToOpenAIRequest(
  request: ChatCompletionRequest,
  context: TranslationContext,
): Record<string, unknown> {
  const body: Record<string, unknown> = { ...request, model: context.upstreamModel };
  for (const field of GATEWAY_ONLY_FIELDS) delete body[field];
  if (request.stream) body.stream_options = { ...(request.stream_options ?? {}), include_usage: true };
  else delete body.stream_options;
  if (request.enable_search) body.web_search_options = (request.web_search_options as object | undefined) ?? {};
  return body;
}

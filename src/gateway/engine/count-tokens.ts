import type { FastifyRequest } from 'fastify';
import type { ApiKeyRecord } from '../../routing/api-key-record.js';
import { isModelAllowed } from '../../routing/api-key-record.js';
import { NotFoundError, PermissionDeniedError } from '../../shared/errors.js';
import type { ChatCompletionRequest } from '../../shared/openai-types.js';
import { countTokens } from '../../shared/tokenizer.js';
import type { NativeApi } from '../../providers/native-api.js';
import type { TranslationContext } from '../../providers/provider-adapter.js';
import type { ChatEngineDeps } from './open-chat.js';
import { nativeSupport } from './open-native.js';

/**
 * Counting tokens costs nothing and answers nothing but a number, so it is no request of the
 * engine (no admission, no charge, no usage event): the model's first endpoint that speaks the
 * client's API counts natively; otherwise the gateway estimates (null here).
 */
export async function countTokensNatively(
  deps: ChatEngineDeps,
  request: FastifyRequest,
  modelId: string,
  call: { api: NativeApi; action: string; body: Record<string, unknown>; clientHeaders: Record<string, string> },
): Promise<{ status: number; bytes: Uint8Array } | null> {
  const key = (request as FastifyRequest & { apiKey?: ApiKeyRecord }).apiKey ?? null;
  const model = deps.directory.get(modelId);
  if (!model)
    throw new NotFoundError(
      `The model '${modelId}' does not exist or is not served by any configured provider.`,
      'model_not_found',
      'model',
    );
  if (key && !isModelAllowed(key, model.id))
    throw new PermissionDeniedError(
      `This API key is not allowed to use the model '${modelId}'.`,
      'model_not_allowed',
      'model',
    );
  const candidate = deps.directory.candidatesFor(model).find((each) => {
    const support = nativeSupport(deps.registry, call.api, each);
    return support !== undefined && (support.actions?.includes(call.action) ?? true);
  });
  if (!candidate) return null;
  const support = nativeSupport(deps.registry, call.api, candidate)!;
  const context: TranslationContext = {
    provider: candidate.provider,
    upstreamModel: candidate.endpoint.upstreamModel,
    publicModel: model.id,
    completionId: request.id,
    created: Math.floor(deps.clock.now() / 1000),
    generateId: (prefix) => deps.ids.next(prefix),
    stream: false,
  };
  const body = { ...call.body };
  for (const field of ['models', 'provider'] as const) delete body[field];
  const upstreamRequest = await support.buildRequest(
    { body, stream: false, clientHeaders: call.clientHeaders, action: call.action },
    context,
  );
  const response = await deps.upstream.send(candidate.provider, upstreamRequest, AbortSignal.timeout(30_000));
  const bytes = new Uint8Array(await response.body.arrayBuffer());
  if (response.statusCode < 200 || response.statusCode >= 300)
    throw deps.registry.get(candidate.provider.type)!.mapError(response.statusCode, bytes, response.headers, context);
  return { status: response.statusCode, bytes };
}

/** The gateway's estimate of a chat request's input tokens (o200k; 3 per message, as chat formats count). */
export function estimateInputTokens(chat: ChatCompletionRequest): number {
  let total = 0;
  for (const message of chat.messages) {
    total += 3;
    if (typeof message.content === 'string') total += countTokens(message.content);
    else if (Array.isArray(message.content))
      for (const part of message.content) total += part.type === 'text' ? countTokens(part.text ?? '') : 85;
    for (const call of message.tool_calls ?? []) total += countTokens(call.function.name + call.function.arguments);
  }
  if (chat.tools?.length) total += countTokens(JSON.stringify(chat.tools));
  return total;
}

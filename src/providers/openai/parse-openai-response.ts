import { UpstreamError } from '../../shared/errors.js';
import type { ChatCompletion } from '../../shared/openai-types.js';
import type { TranslationContext } from '../provider-adapter.js';
import { upstreamChecker } from '../shared/upstream-schema.js';
import { OpenAIResponseSchema } from './openai-chunk-schema.js';
import { normalizeMessage, readUsage } from './normalize-openai-compatible.js';

/** A whole OpenAI-compatible answer, checked against its schema, built with our ids (fields not read go along). */
export function parseOpenAIResponse(body: Uint8Array, context: TranslationContext): ChatCompletion {
  let json: unknown;
  try {
    json = JSON.parse(utf8.decode(body));
  } catch {
    throw new UpstreamError(
      502,
      'upstream_bad_response',
      `${context.provider.name} answered with a body that is not JSON.`,
    );
  }
  const { usage, choices, ...rest } = responseChecker.read(json, context.provider.name, 'an answer');
  const completion: ChatCompletion = {
    ...rest,
    id: context.completionId,
    object: 'chat.completion',
    created: rest.created ?? context.created,
    model: context.publicModel,
    choices: choices.map((choice, position) => ({
      ...choice,
      index: choice.index ?? position,
      message: normalizeMessage(choice.message ?? {}, context),
      finish_reason: choice.finish_reason ?? null,
    })),
  };
  const reported = usage ?? rest.x_groq?.usage;
  if (reported) completion.usage = readUsage(reported);
  return completion;
}

const responseChecker = upstreamChecker(OpenAIResponseSchema);
/** One decoder for every answer: decode() without `stream` keeps no state between calls. */
const utf8 = new TextDecoder();

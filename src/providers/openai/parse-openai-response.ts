import { UpstreamError } from '../../shared/errors.js';
import type { ChatCompletion } from '../../shared/openai-types.js';
import type { TranslationContext } from '../provider-adapter.js';
import { normalizeMessage, normalizeUsage } from './normalize-openai-compatible.js';

/** A whole OpenAI-compatible answer, checked for the fields clients rely on, renamed to our ids. */
export function parseOpenAIResponse(body: Uint8Array, context: TranslationContext): ChatCompletion {
  let parsed: ChatCompletion;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body)) as ChatCompletion;
  } catch {
    throw new UpstreamError(
      502,
      'upstream_bad_response',
      `${context.provider.name} answered with a body that is not JSON.`,
    );
  }
  if (!parsed || typeof parsed !== 'object' || !Array.isArray(parsed.choices)) {
    throw new UpstreamError(502, 'upstream_bad_response', `${context.provider.name} answered without a choices array.`);
  }
  parsed.id = context.completionId;
  parsed.object = 'chat.completion';
  parsed.model = context.publicModel;
  if (typeof parsed.created !== 'number') parsed.created = context.created;
  for (const choice of parsed.choices) if (choice.message) normalizeMessage(choice.message);
  const usage = parsed.usage ?? (parsed.x_groq as { usage?: ChatCompletion['usage'] } | undefined)?.usage;
  if (usage) parsed.usage = normalizeUsage(usage);
  return parsed;
}

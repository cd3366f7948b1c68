import type { ChatCompletionChunk, FinishReason } from '../../shared/openai-types.js';
import type { TranslationContext } from '../provider-adapter.js';

type Delta = ChatCompletionChunk['choices'][number]['delta'];

/** One OpenAI chat.completion.chunk with our ids, for decoders that build chunks from other protocols. */
export function createChunk(
  context: TranslationContext,
  delta: Delta,
  finishReason: FinishReason | null = null,
  index = 0,
): ChatCompletionChunk {
  return {
    id: context.completionId,
    object: 'chat.completion.chunk',
    created: context.created,
    model: context.publicModel,
    choices: [{ index, delta, finish_reason: finishReason }],
  };
}

import type { ChatCompletion, ChatCompletionChunk } from '../shared/openai-types.js';

/**
 * Fills the fields OpenAI's published OpenAPI document marks required (and drops nulls it does
 * not allow) whatever the upstream sent, so clients generated from that document accept every
 * answer. OpenAI-compatible providers often leave out `logprobs` or `refusal`, or send
 * `system_fingerprint: null`. In place, pure; an answer that already conforms is left as it is.
 */
export function conformCompletion(completion: ChatCompletion): ChatCompletion {
  dropNullFingerprint(completion);
  for (const choice of completion.choices) {
    if (choice.logprobs === undefined) choice.logprobs = null;
    const message = (choice.message ??= { role: 'assistant', content: null });
    message.role = 'assistant';
    if (message.content === undefined) message.content = null;
    if (message.refusal === undefined) message.refusal = null;
    if (Array.isArray(message.tool_calls) && message.tool_calls.length === 0) delete message.tool_calls;
  }
  return completion;
}

export function conformChunk(chunk: ChatCompletionChunk): ChatCompletionChunk {
  dropNullFingerprint(chunk);
  for (const choice of chunk.choices) {
    if (choice.finish_reason === undefined) choice.finish_reason = null;
    choice.delta ??= {};
  }
  return chunk;
}

function dropNullFingerprint(answer: { system_fingerprint?: string | null }): void {
  if (answer.system_fingerprint === null) delete answer.system_fingerprint;
}

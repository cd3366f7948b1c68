import { GatewayError } from '../../src/shared/errors.js';
import type { ChatCompletion, ChatCompletionChunk, Usage } from '../../src/shared/openai-types.js';
import { parseOpenAIResponse } from '../../src/providers/openai/parse-openai-response.js';
import { OpenAIStreamDecoder } from '../../src/providers/openai/openai-stream-decoder.js';
import type { StreamEvent } from '../../src/providers/provider-adapter.js';
import { splitRandomly } from './byte-pieces.js';
import { fixtureBytes } from './fixtures.js';
import { testContext } from './translation-context.js';

/**
 * Recorded OpenAI-compatible traffic as the gateway's core hands it to a protocol translator:
 * answers normalized by the OpenAI adapter (reasoning_content → reasoning, …), streams decoded
 * into chunks plus the last usage seen. Lets translator tests start from real bytes.
 */
export function recordedCompletion(family: string, name: string): ChatCompletion {
  return parseOpenAIResponse(fixtureBytes(family, name), testContext());
}

export interface RecordedStream {
  chunks: ChatCompletionChunk[];
  usage: Usage | null;
  /** The error that ended the stream (an upstream error event), if any. */
  error: GatewayError | null;
}

/** A recorded SSE body cut at random byte boundaries (seeded) and decoded; `seed` null = one piece. */
export function recordedStream(family: string, name: string, seed: number | null = null): RecordedStream {
  const bytes = fixtureBytes(family, name);
  const pieces = seed === null ? [bytes] : splitRandomly(bytes, seed);
  const decoder = new OpenAIStreamDecoder(testContext({ stream: true }));
  const result: RecordedStream = { chunks: [], usage: null, error: null };
  const take = (events: StreamEvent[]) => {
    for (const event of events) {
      if (event.type === 'chunk') result.chunks.push(event.chunk);
      if (event.type === 'usage') result.usage = event.usage;
    }
  };
  try {
    for (const piece of pieces) take(decoder.push(piece));
    take(decoder.end());
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    result.error = error;
  }
  return result;
}

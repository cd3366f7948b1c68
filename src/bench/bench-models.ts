/**
 * The model names the benchmark sends. The fake upstream picks its behaviour from the name,
 * so one upstream process serves every scenario and every gateway points at the same one.
 */
export const BENCH_MODELS = {
  /** Whole answers and streams as fast as possible (throughput, CPU). */
  fast: 'bench-fast',
  /** Streams with a short gap before each chunk (time to first token). */
  firstToken: 'bench-first-token',
  /** Streams with a long gap, so many stay open at once (memory). */
  longOpen: 'bench-long-open',
} as const;

/** What every answer looks like: ~200 tokens in 50 chunks of 4 words. */
export const ANSWER_SHAPE = { chunkCount: 50, tokensPerChunk: 4 } as const;

export interface UpstreamGaps {
  firstTokenGapMs: number;
  longOpenGapMs: number;
}

const PROMPT = 'Write two hundred words of placeholder text for a load test.';

export function chatBody(model: string, stream: boolean): string {
  const body: Record<string, unknown> = { model, messages: [{ role: 'user', content: PROMPT }] };
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return JSON.stringify(body);
}

/**
 * An OpenAI-compatible chat chunk as an upstream writes it (one text delta, the commonest shape),
 * with top-level fields and the first choice's fields overridden: the chunk readers' tests build
 * their cases from it.
 */
export const upstreamChunk = (overrides: Record<string, unknown> = {}, choice: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: 'chatcmpl-up',
    object: 'chat.completion.chunk',
    created: 1_770_000_000,
    model: 'up-model',
    system_fingerprint: 'fp_1',
    choices: [{ index: 0, delta: { content: 'Hi' }, logprobs: null, finish_reason: null, ...choice }],
    ...overrides,
  });

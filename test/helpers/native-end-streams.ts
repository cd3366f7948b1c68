import type { UpstreamAnswer } from './fake-upstream.js';

/** The tokens every stream here reports (done-ends-metered-answer.test.ts charges by them). */
export const PROMPT_TOKENS = 10;
export const COMPLETION_TOKENS = 5;

export const SSE = { 'content-type': 'text/event-stream' };

/**
 * Native pass-through (the request's API is the upstream's): the upstream's bytes go to the client
 * as they are, and its own last event ends the answer (Anthropic's message_stop, the Responses
 * response.completed / response.failed; Gemini, with no end marker, a chunk finishing every
 * candidate). Each stream is the pieces the upstream writes.
 */
const named = (events: Array<[string, object]>) =>
  events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
export const ANTHROPIC_STREAM = named([
  [
    'message_start',
    {
      type: 'message_start',
      message: {
        id: 'msg_up',
        type: 'message',
        role: 'assistant',
        model: 'claude-up',
        content: [],
        usage: { input_tokens: PROMPT_TOKENS, output_tokens: 1 },
      },
    },
  ],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hello' } }],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  [
    'message_delta',
    { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: COMPLETION_TOKENS } },
  ],
  ['message_stop', { type: 'message_stop' }],
]);
const responsesUsage = { input_tokens: PROMPT_TOKENS, output_tokens: COMPLETION_TOKENS, total_tokens: 15 };
const responsesStream = (last: [string, object]) =>
  named([
    [
      'response.created',
      { type: 'response.created', sequence_number: 0, response: { id: 'r', status: 'in_progress' } },
    ],
    ['response.output_text.delta', { type: 'response.output_text.delta', sequence_number: 1, delta: 'hello' }],
    last,
  ]);
export const RESPONSES_STREAM = responsesStream([
  'response.completed',
  { type: 'response.completed', sequence_number: 2, response: { id: 'r', status: 'completed', usage: responsesUsage } },
]);
export const RESPONSES_FAILED = responsesStream([
  'response.failed',
  {
    type: 'response.failed',
    sequence_number: 2,
    response: { id: 'r', status: 'failed', error: { code: 'server_error', message: 'boom' }, usage: responsesUsage },
  },
]);
const gemini = (...chunks: object[]) => chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`);
const geminiText = (text: string, finish?: string) => ({
  candidates: [
    { index: 0, content: { role: 'model', parts: [{ text }] }, ...(finish ? { finishReason: finish } : {}) },
  ],
});
const geminiUsage = (completion: number) => ({
  usageMetadata: {
    promptTokenCount: PROMPT_TOKENS,
    candidatesTokenCount: completion,
    totalTokenCount: PROMPT_TOKENS + completion,
  },
});
export const GEMINI_STREAM = gemini(
  { ...geminiText('hel'), ...geminiUsage(1) },
  { ...geminiText('lo', 'STOP'), ...geminiUsage(COMPLETION_TOKENS) },
);
/** The final usage in a chunk of its own after the one with the finish reason (it still counts). */
export const GEMINI_USAGE_AFTER = gemini(
  { ...geminiText('hel'), ...geminiUsage(1) },
  { ...geminiText('lo', 'STOP'), ...geminiUsage(2) },
  geminiUsage(COMPLETION_TOKENS),
);
/** A server that names a finish reason before the text (a translating proxy): the text still comes. */
export const GEMINI_EARLY = gemini(
  { ...geminiText('', 'STOP') },
  { ...geminiText('hel'), ...geminiUsage(1) },
  { ...geminiText('lo', 'STOP'), ...geminiUsage(COMPLETION_TOKENS) },
);

/** The native stream for this upstream request, or null (a chat request). */
function nativeStream(url: string, text: string): string[] | null {
  if (url.endsWith('/messages')) return ANTHROPIC_STREAM;
  if (url.endsWith('/responses')) return text.includes('failed') ? RESPONSES_FAILED : RESPONSES_STREAM;
  if (url.includes(':streamGenerateContent'))
    return text.includes('usage-after') ? GEMINI_USAGE_AFTER : text.includes('early') ? GEMINI_EARLY : GEMINI_STREAM;
  return null;
}

/**
 * After its last event, as the request's text says: the response held open (`hold`), the
 * connection cut (`cut`) or the response ended a packet later (`later`). `later`, `early` and
 * `usage-after` write each event on its own; the others all events at once.
 */
export function nativeAnswer(url: string, text: string): UpstreamAnswer | null {
  const pieces = nativeStream(url, text);
  if (!pieces) return null;
  const body = /later|early|usage-after/.test(text) ? pieces : [pieces.join('')];
  if (text.includes('later')) return { headers: SSE, body };
  return { headers: SSE, body, ...(text.includes('cut') ? { cut: true } : { hold: true }) };
}

import { Ajv, type ValidateFunction } from 'ajv';

/**
 * The shapes of Anthropic's Messages API answers, declared from its API reference
 * (platform.claude.com/docs/en/api/messages/create, .../build-with-claude/streaming and
 * .../handling-stop-reasons) and checked against the recorded wire in test/fixtures/anthropic
 * (test/gateway/answer-conformance.test.ts validates the recordings first). Required fields are
 * the ones the reference marks required; extra fields are allowed, as Anthropic adds them.
 */
const STOP_REASONS = [
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
];
const ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'billing_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'api_error',
  'timeout_error',
  'overloaded_error',
];

const integer = { type: 'integer', minimum: 0 };
const nullableInteger = { type: ['integer', 'null'], minimum: 0 };
const typed = (type: string, required: string[], properties: Record<string, unknown> = {}) => ({
  type: 'object',
  required: ['type', ...required],
  properties: { type: { const: type }, ...properties },
});

const usage = {
  type: 'object',
  required: ['input_tokens', 'output_tokens'],
  properties: {
    input_tokens: integer,
    output_tokens: integer,
    cache_creation_input_tokens: nullableInteger,
    cache_read_input_tokens: nullableInteger,
  },
};

const contentBlock = {
  oneOf: [
    typed('text', ['text'], { text: { type: 'string' }, citations: { type: ['array', 'null'] } }),
    typed('tool_use', ['id', 'name', 'input'], {
      id: { type: 'string', minLength: 1 },
      name: { type: 'string', minLength: 1 },
      input: { type: 'object' },
    }),
    typed('server_tool_use', ['id', 'name', 'input'], { input: { type: 'object' } }),
    typed('web_search_tool_result', ['tool_use_id', 'content']),
    typed('thinking', ['thinking', 'signature'], { thinking: { type: 'string' }, signature: { type: 'string' } }),
    typed('redacted_thinking', ['data'], { data: { type: 'string' } }),
  ],
};

const message = {
  type: 'object',
  // The reference lists stop_sequence too; a recorded answer (messages.nonstream.tool-use) leaves it out.
  required: ['id', 'type', 'role', 'content', 'model', 'stop_reason', 'usage'],
  properties: {
    id: { type: 'string', minLength: 1 },
    type: { const: 'message' },
    role: { const: 'assistant' },
    content: { type: 'array', items: contentBlock },
    model: { type: 'string', minLength: 1 },
    stop_reason: { enum: [...STOP_REASONS, null] },
    stop_sequence: { type: ['string', 'null'] },
    usage,
  },
};

const error = {
  type: 'object',
  required: ['type', 'error'],
  properties: {
    type: { const: 'error' },
    error: {
      type: 'object',
      required: ['type', 'message'],
      properties: { type: { enum: ERROR_TYPES }, message: { type: 'string' } },
    },
  },
};

const delta = {
  oneOf: [
    typed('text_delta', ['text'], { text: { type: 'string' } }),
    typed('input_json_delta', ['partial_json'], { partial_json: { type: 'string' } }),
    typed('thinking_delta', ['thinking'], { thinking: { type: 'string' } }),
    typed('signature_delta', ['signature'], { signature: { type: 'string' } }),
    typed('citations_delta', ['citation']),
  ],
};

/** One streamed event's data, by its type (the SSE event name must be the same). */
const streamEvent = {
  oneOf: [
    typed('message_start', ['message'], { message }),
    typed('content_block_start', ['index', 'content_block'], { index: integer, content_block: contentBlock }),
    typed('content_block_delta', ['index', 'delta'], { index: integer, delta }),
    typed('content_block_stop', ['index'], { index: integer }),
    typed('message_delta', ['delta', 'usage'], {
      delta: {
        type: 'object',
        required: ['stop_reason'],
        properties: { stop_reason: { enum: [...STOP_REASONS, null] }, stop_sequence: { type: ['string', 'null'] } },
      },
      usage: { type: 'object', required: ['output_tokens'], properties: { output_tokens: integer } },
    }),
    typed('message_stop', []),
    typed('ping', []),
    error,
  ],
};

const ajv = new Ajv({ strict: false, allErrors: true });
const validators: Record<'message' | 'error' | 'event', ValidateFunction> = {
  message: ajv.compile(message),
  error: ajv.compile(error),
  event: ajv.compile(streamEvent),
};

/** The schema errors of a whole answer (`message`), an error body, or one event's data; null when it conforms. */
export function anthropicErrors(kind: 'message' | 'error' | 'event', value: unknown): string | null {
  const validate = validators[kind];
  return validate(value) ? null : ajv.errorsText(validate.errors, { separator: '\n' });
}

/**
 * A whole Messages stream: every event conforms, is named for its type, and the events come in
 * Anthropic's order (message_start first; a block's deltas and stop only after its start;
 * message_delta, then message_stop last), or end with an error event. A block may be left
 * unstopped: Anthropic does so when max_tokens cuts a tool's input (recorded in
 * messages.stream.max-tokens-incomplete-tool-input.sse). Returns the faults found.
 */
export function anthropicStreamFaults(text: string): string[] {
  const faults: string[] = [];
  const events = text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const name = /^event: (.*)$/m.exec(block)?.[1];
      const data = block
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      return { name, data: JSON.parse(data) as { type: string; index?: number } };
    });
  const open = new Set<number>();
  events.forEach(({ name, data }, position) => {
    const where = `event ${position} (${data.type})`;
    const errors = anthropicErrors('event', data);
    if (errors) faults.push(`${where}: ${errors}`);
    if (name !== data.type) faults.push(`${where}: named ${name}`);
    if ((position === 0) !== (data.type === 'message_start')) faults.push(`${where}: message_start must come first`);
    if (data.type === 'content_block_start') open.add(data.index!);
    if ((data.type === 'content_block_delta' || data.type === 'content_block_stop') && !open.has(data.index!))
      faults.push(`${where}: block ${data.index} is not open`);
    if (data.type === 'content_block_stop') open.delete(data.index!);
  });
  const last = events.at(-1)?.data.type;
  if (last !== 'message_stop' && last !== 'error') faults.push(`the stream ends with ${last}`);
  if (last === 'message_stop' && events.at(-2)?.data.type !== 'message_delta')
    faults.push('message_delta must come right before message_stop');
  return faults;
}

import { Ajv, type ValidateFunction } from 'ajv';

/**
 * The shapes of the Gemini API's answers (`GenerateContentResponse`, its stream chunks, the error
 * envelope), declared from its API reference (ai.google.dev/api/generate-content: Candidate,
 * Content, Part, FinishReason, UsageMetadata; ai.google.dev/gemini-api/docs/troubleshooting for
 * errors) and checked against the recorded wire in test/fixtures/gemini
 * (test/gateway/answer-conformance.test.ts validates the recordings first). Every field is
 * optional in the reference's JSON (proto3); what is checked is that each present field has its
 * declared type, enums hold declared values, and a Part carries exactly one kind of data.
 */
const FINISH_REASONS = [
  'FINISH_REASON_UNSPECIFIED',
  'STOP',
  'MAX_TOKENS',
  'SAFETY',
  'RECITATION',
  'LANGUAGE',
  'OTHER',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'MALFORMED_FUNCTION_CALL',
  'IMAGE_SAFETY',
  'UNEXPECTED_TOOL_CALL',
  'TOO_MANY_TOOL_CALLS',
];
const DATA_FIELDS = [
  'text',
  'inlineData',
  'functionCall',
  'functionResponse',
  'fileData',
  'executableCode',
  'codeExecutionResult',
];

const integer = { type: 'integer', minimum: 0 };
const modalityCounts = {
  type: 'array',
  items: {
    type: 'object',
    required: ['modality'],
    properties: { modality: { type: 'string' }, tokenCount: integer },
  },
};

const part = {
  type: 'object',
  properties: {
    text: { type: 'string' },
    thought: { type: 'boolean' },
    thoughtSignature: { type: 'string' },
    inlineData: {
      type: 'object',
      required: ['mimeType', 'data'],
      properties: { mimeType: { type: 'string' }, data: { type: 'string' } },
    },
    functionCall: {
      type: 'object',
      required: ['name'],
      properties: { id: { type: 'string' }, name: { type: 'string', minLength: 1 }, args: { type: 'object' } },
    },
    functionResponse: { type: 'object', required: ['name'] },
  },
  // One kind of data a part; a thought signature may travel alone on the last streamed part.
  oneOf: [
    ...DATA_FIELDS.map((field) => ({ required: [field], not: { anyOf: otherThan(field) } })),
    { required: ['thoughtSignature'], not: { anyOf: DATA_FIELDS.map((field) => ({ required: [field] })) } },
  ],
};

function otherThan(field: string) {
  return DATA_FIELDS.filter((other) => other !== field).map((other) => ({ required: [other] }));
}

const candidate = {
  type: 'object',
  properties: {
    content: {
      type: 'object',
      properties: { role: { enum: ['model', 'user'] }, parts: { type: 'array', items: part } },
    },
    finishReason: { enum: FINISH_REASONS },
    finishMessage: { type: 'string' },
    index: integer,
    safetyRatings: { type: 'array' },
    citationMetadata: { type: 'object' },
    groundingMetadata: { type: 'object' },
    tokenCount: integer,
    avgLogprobs: { type: 'number' },
  },
};

const usageMetadata = {
  type: 'object',
  properties: {
    promptTokenCount: integer,
    cachedContentTokenCount: integer,
    candidatesTokenCount: integer,
    toolUsePromptTokenCount: integer,
    thoughtsTokenCount: integer,
    totalTokenCount: integer,
    promptTokensDetails: modalityCounts,
    cacheTokensDetails: modalityCounts,
    candidatesTokensDetails: modalityCounts,
    toolUsePromptTokensDetails: modalityCounts,
  },
};

const response = {
  type: 'object',
  properties: {
    candidates: { type: 'array', items: candidate },
    promptFeedback: { type: 'object' },
    usageMetadata,
    modelVersion: { type: 'string' },
    responseId: { type: 'string' },
  },
  // Something to say: a candidate, or the prompt's feedback (blocked), or the usage alone.
  anyOf: [{ required: ['candidates'] }, { required: ['promptFeedback'] }, { required: ['usageMetadata'] }],
};

const error = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'status'],
      properties: {
        code: { type: 'integer', minimum: 400, maximum: 599 },
        message: { type: 'string' },
        status: { type: 'string', pattern: '^[A-Z_]+$' },
        details: { type: 'array' },
      },
    },
  },
};

const ajv = new Ajv({ strict: false, allErrors: true });
const validators: Record<'response' | 'error', ValidateFunction> = {
  response: ajv.compile(response),
  error: ajv.compile(error),
};

/** The schema errors of a GenerateContentResponse (whole or one stream chunk) or an error body; null when it conforms. */
export function geminiErrors(kind: 'response' | 'error', value: unknown): string | null {
  const validate = validators[kind];
  return validate(value) ? null : ajv.errorsText(validate.errors, { separator: '\n' });
}

/**
 * A whole `streamGenerateContent?alt=sse` stream: `data:` events only, each a conforming chunk
 * (or, at the end only, the error envelope), the last chunk with a finish reason.
 */
export function geminiStreamFaults(text: string): string[] {
  const faults: string[] = [];
  const chunks = text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== '')
    .map((block, position) => {
      if (!block.startsWith('data:')) faults.push(`event ${position} is not a data event: ${block.slice(0, 40)}`);
      return JSON.parse(block.replace(/^data:\s?/, '')) as {
        error?: unknown;
        candidates?: Array<{ finishReason?: string }>;
      };
    });
  chunks.forEach((chunk, position) => {
    const isError = chunk.error !== undefined;
    if (isError && position !== chunks.length - 1) faults.push(`chunk ${position}: an error before the end`);
    const errors = geminiErrors(isError ? 'error' : 'response', chunk);
    if (errors) faults.push(`chunk ${position}: ${errors}`);
  });
  const last = chunks.at(-1);
  if (last && last.error === undefined && !last.candidates?.some((each) => each.finishReason))
    faults.push('the last chunk has no finish reason');
  return faults;
}

/**
 * What the fake upstream should do for a request: the scenario types, their defaults, and the
 * validation of scenarios arriving as text (the x-mock-scenario header, the CLI's --scenario).
 */

type MockFailure =
  | { kind: 'status'; status: number; body?: string; headers?: Record<string, string> }
  | { kind: 'hang' }
  | { kind: 'hang-mid-stream'; afterChunks: number }
  | { kind: 'close-mid-stream'; afterChunks: number }
  | { kind: 'garbage' }
  | { kind: 'reset' };

export interface MockScenario {
  /** Delay before anything is answered (headers, a failure status or a reset). */
  latencyMs?: number;
  /** Stream: number of content chunks. */
  chunkCount?: number;
  /** Words per content chunk. */
  tokensPerChunk?: number;
  /** Stream: delay before each content chunk. */
  chunkGapMs?: number;
  /** Non-stream: words in the answer; defaults to chunkCount × tokensPerChunk. */
  completionTokens?: number;
  failure?: MockFailure;
  /** Answer with this tool call instead of text. */
  toolCall?: { name: string; arguments: string };
  /** Send the usage chunk when the request asks for it with stream_options.include_usage. */
  usageInStream?: boolean;
}

/** Picks the behaviour for one request from its parsed JSON body. */
export type MockScenarioSelector = (body: Record<string, unknown>) => MockScenario;

export type ResolvedScenario = Required<Omit<MockScenario, 'failure' | 'toolCall'>> &
  Pick<MockScenario, 'failure' | 'toolCall'>;

/** Programmatic scenarios skip parseMockScenario, so a stray 0 or -1 must not loop or throw later. */
function wholeAtLeast(value: number | undefined, fallback: number, minimum: number): number {
  return value === undefined || !Number.isFinite(value) ? fallback : Math.max(minimum, Math.floor(value));
}

export function resolveScenario(scenario: MockScenario): ResolvedScenario {
  const chunkCount = wholeAtLeast(scenario.chunkCount, 20, 0);
  const tokensPerChunk = wholeAtLeast(scenario.tokensPerChunk, 1, 1);
  return {
    latencyMs: wholeAtLeast(scenario.latencyMs, 0, 0),
    chunkCount,
    tokensPerChunk,
    chunkGapMs: wholeAtLeast(scenario.chunkGapMs, 0, 0),
    completionTokens: wholeAtLeast(scenario.completionTokens, chunkCount * tokensPerChunk, 0),
    usageInStream: scenario.usageInStream ?? true,
    failure: scenario.failure,
    toolCall: scenario.toolCall,
  };
}

const NUMBER_FIELDS = ['latencyMs', 'chunkCount', 'tokensPerChunk', 'chunkGapMs', 'completionTokens'] as const;
const FAILURE_KINDS = ['status', 'hang', 'hang-mid-stream', 'close-mid-stream', 'garbage', 'reset'];

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireWholeNumber(value: unknown, field: string, minimum: number): void {
  if (!Number.isInteger(value) || (value as number) < minimum) {
    throw new TypeError(`${field} must be a whole number of at least ${minimum}`);
  }
}

function checkFailure(failure: unknown): void {
  if (!isPlainObject(failure) || !FAILURE_KINDS.includes(failure.kind as string)) {
    throw new TypeError(`failure.kind must be one of ${FAILURE_KINDS.join(', ')}`);
  }
  if (failure.kind === 'status') {
    requireWholeNumber(failure.status, 'failure.status', 200);
    if ((failure.status as number) > 599) throw new TypeError('failure.status must be at most 599');
    if (failure.body !== undefined && typeof failure.body !== 'string')
      throw new TypeError('failure.body must be a string');
    const headers = failure.headers;
    if (
      headers !== undefined &&
      (!isPlainObject(headers) || Object.values(headers).some((value) => typeof value !== 'string'))
    ) {
      throw new TypeError('failure.headers must be an object of strings');
    }
  }
  if (failure.kind === 'hang-mid-stream' || failure.kind === 'close-mid-stream') {
    requireWholeNumber(failure.afterChunks, 'failure.afterChunks', 0);
  }
}

/** Checks untrusted scenario JSON; throws a TypeError naming the bad field. */
export function parseMockScenario(value: unknown): MockScenario {
  if (!isPlainObject(value)) throw new TypeError('the scenario must be a JSON object');
  const known = new Set<string>([...NUMBER_FIELDS, 'failure', 'toolCall', 'usageInStream']);
  for (const field of Object.keys(value)) {
    if (!known.has(field)) throw new TypeError(`unknown scenario field "${field}"`);
  }
  for (const field of NUMBER_FIELDS) {
    if (value[field] !== undefined) requireWholeNumber(value[field], field, field === 'tokensPerChunk' ? 1 : 0);
  }
  if (value.usageInStream !== undefined && typeof value.usageInStream !== 'boolean') {
    throw new TypeError('usageInStream must be true or false');
  }
  const toolCall = value.toolCall;
  if (
    toolCall !== undefined &&
    (!isPlainObject(toolCall) || typeof toolCall.name !== 'string' || typeof toolCall.arguments !== 'string')
  ) {
    throw new TypeError('toolCall must be {"name": string, "arguments": string}');
  }
  // null lets a header switch off the server's failure for one request (spreading undefined over it).
  if (value.failure === null) return { ...value, failure: undefined } as MockScenario;
  if (value.failure !== undefined) checkFailure(value.failure);
  return value as MockScenario;
}

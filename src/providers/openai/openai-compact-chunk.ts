import type { ChatCompletionChunk } from '../../shared/openai-types.js';

/**
 * The commonest chunk of OpenAI-compatible streams (vLLM, Groq, Ollama, DeepSeek, Mistral, and
 * the benchmark's upstream), read straight from its text without JSON.parse, which was half of
 * what a chunk cost even once the re-serialising was gone (openai-chunk-splice.ts):
 *
 *   {"id":"…","object":"chat.completion.chunk","created":N,"model":"…"[,"system_fingerprint":"…"],
 *    "choices":[{"index":N,"delta":{…}[,"logprobs":null],"finish_reason":null|"…"}][,"usage":null]}
 *
 * compact (no whitespace), in that order, one choice, a delta of `role: "assistant"`, `content`
 * and `refusal` (string or null), `reasoning_content` (string or null: DeepSeek's, vLLM's and
 * SGLang's reasoning, which becomes our `reasoning` as the translation makes it) and one tool
 * call's arguments piece (`"tool_calls":[{"index":N,"function":{"arguments":"…"}}]`) in any order.
 * Every byte is accounted for: the
 * fixed parts are compared whole, strings are scanned (a control character or, outside content,
 * an escape turns the chunk down; content with escapes is decoded by JSON.parse of its literal),
 * and the text must end where the shape does. So a chunk read here is valid JSON and is what the
 * full translation would make of it; anything else returns undefined and is parsed as before.
 */

/** Our `id` and `model` for one stream: as values, and as JSON string literals (quotes included). */
export interface CompactIdentity {
  id: string;
  model: string;
  idJson: string;
  modelJson: string;
  /**
   * The opening and the closing of the last chunk read for this stream (the reader keeps them
   * here). A stream's chunks nearly all repeat both, byte for byte: a chunk that begins with the
   * same text up to its delta, or ends with the same text after it, is read there as that text
   * was (what is read of each depends on its own bytes alone), instead of read again.
   */
  last?: { opening: Opening; closing: Closing };
}

export interface CompactChunk {
  chunk: ChatCompletionChunk;
  /** The chunk's text with our id and model in, and OpenAI's `"usage":null` left out. */
  json: string;
}

type Delta = ChatCompletionChunk['choices'][number]['delta'];
type FinishReason = ChatCompletionChunk['choices'][number]['finish_reason'];

/** A chunk's text up to and including `,"delta":{`, what it says, and what it is written as (ours spliced in). */
interface Opening {
  text: string;
  json: string;
  created: number;
  fingerprint: string | undefined;
  index: number;
  /** Its strings are copies of their own (see keep). */
  kept: boolean;
}

/** A chunk's text from just after its delta's `}` to its end, what it says, and what it is written as. */
interface Closing {
  text: string;
  json: string;
  logprobs: boolean;
  finishReason: FinishReason;
  /** Its strings are copies of their own (see keep). */
  kept: boolean;
}

const OPENING = '{"id":"';
const AFTER_ID = '","object":"chat.completion.chunk","created":';
const MODEL_KEY = ',"model":"';
const FINGERPRINT_KEY = ',"system_fingerprint":"';
const CHOICE_OPENING = ',"choices":[{"index":';
const DELTA_KEY = ',"delta":{';
const LOGPROBS_NULL = ',"logprobs":null';
const FINISH_REASON_KEY = ',"finish_reason":';
const REASONING_CONTENT_KEY = '"reasoning_content":';
const TOOL_CALL_OPENING = '"tool_calls":[{"index":';
const ARGUMENTS_KEY = ',"function":{"arguments":';
const TOOL_CALL_CLOSING = '}}]';
const CLOSING = '}]}';
const CLOSING_USAGE_NULL = '}],"usage":null}';

export function readCompactChunk(data: string, ours: CompactIdentity): CompactChunk | undefined {
  const last = ours.last;
  let opening = last?.opening;
  if (opening === undefined || !textAt(data, 0, opening.text)) {
    opening = readOpening(data, ours);
    if (opening === undefined) return undefined;
  } else if (!opening.kept) keep(opening);
  const deltaStart = opening.text.length;
  const delta: Delta = {};
  const edit = EDIT;
  edit.start = -1;
  edit.text = '';
  const deltaEnd = readDelta(data, deltaStart, delta, edit);
  if (deltaEnd === -1) return undefined;
  let closing = last?.closing;
  if (
    closing === undefined ||
    data.length - deltaEnd !== closing.text.length ||
    !textAt(data, deltaEnd, closing.text)
  ) {
    closing = readClosing(data, deltaEnd);
    if (closing === undefined) return undefined;
  } else if (!closing.kept) keep(closing);
  if (last === undefined) ours.last = { opening, closing };
  else {
    last.opening = opening;
    last.closing = closing;
  }
  // The delta as it stands, with its edit made.
  const middle =
    edit.start === -1
      ? data.slice(deltaStart, deltaEnd)
      : data.slice(deltaStart, edit.start) + edit.text + data.slice(edit.end, deltaEnd);
  const choices = [
    closing.logprobs
      ? { index: opening.index, delta, logprobs: null, finish_reason: closing.finishReason }
      : { index: opening.index, delta, finish_reason: closing.finishReason },
  ];
  const chunk: ChatCompletionChunk =
    opening.fingerprint === undefined
      ? { id: ours.id, object: 'chat.completion.chunk', created: opening.created, model: ours.model, choices }
      : {
          id: ours.id,
          object: 'chat.completion.chunk',
          created: opening.created,
          model: ours.model,
          system_fingerprint: opening.fingerprint,
          choices,
        };
  return { chunk, json: opening.json + middle + closing.json };
}

/** The chunk's opening, read up to and including `,"delta":{`; undefined when it is not the compact shape's. */
function readOpening(data: string, ours: CompactIdentity): Opening | undefined {
  if (!textAt(data, 0, OPENING)) return undefined;
  const idEnd = plainStringEnd(data, OPENING.length);
  if (idEnd === -1 || !textAt(data, idEnd, AFTER_ID)) return undefined;
  const createdStart = idEnd + AFTER_ID.length;
  const createdEnd = digitsEnd(data, createdStart);
  if (createdEnd === -1 || !textAt(data, createdEnd, MODEL_KEY)) return undefined;
  const modelStart = createdEnd + MODEL_KEY.length;
  const modelEnd = plainStringEnd(data, modelStart);
  if (modelEnd === -1) return undefined;
  let at = modelEnd + 1;
  let fingerprint: string | undefined;
  if (textAt(data, at, FINGERPRINT_KEY)) {
    const start = at + FINGERPRINT_KEY.length;
    const end = plainStringEnd(data, start);
    if (end === -1) return undefined;
    fingerprint = data.slice(start, end);
    at = end + 1;
  }
  if (!textAt(data, at, CHOICE_OPENING)) return undefined;
  const indexStart = at + CHOICE_OPENING.length;
  const indexEnd = digitsEnd(data, indexStart);
  if (indexEnd === -1 || !textAt(data, indexEnd, DELTA_KEY)) return undefined;
  const deltaStart = indexEnd + DELTA_KEY.length;
  return {
    text: data.slice(0, deltaStart),
    // From the model's closing quote to the delta: as written.
    json:
      '{"id":' +
      ours.idJson +
      data.slice(idEnd + 1, modelStart - 1) +
      ours.modelJson +
      data.slice(modelEnd + 1, deltaStart),
    kept: false,
    created: readInteger(data, createdStart, createdEnd),
    fingerprint,
    index: readInteger(data, indexStart, indexEnd),
  };
}

/** The chunk's closing, from just after its delta to its end; undefined when it is not the compact shape's. */
function readClosing(data: string, deltaEnd: number): Closing | undefined {
  let at = deltaEnd;
  // Ollama and Mistral leave `logprobs` out; the translation does not add it either.
  const logprobs = textAt(data, at, LOGPROBS_NULL);
  if (logprobs) at += LOGPROBS_NULL.length;
  if (!textAt(data, at, FINISH_REASON_KEY)) return undefined;
  at += FINISH_REASON_KEY.length;
  let finishReason: FinishReason;
  if (textAt(data, at, 'null')) {
    finishReason = null;
    at += 4;
  } else {
    if (data.charCodeAt(at) !== 34 /* " */) return undefined;
    const end = plainStringEnd(data, at + 1);
    if (end === -1) return undefined;
    finishReason = data.slice(at + 1, end) as FinishReason;
    at = end + 1;
  }
  // The text ends where the shape does: nothing unread can hide after it. `"usage":null` is left out.
  const text = data.slice(deltaEnd);
  let json: string;
  if (data.length - at === CLOSING.length && textAt(data, at, CLOSING)) json = text;
  else if (data.length - at === CLOSING_USAGE_NULL.length && textAt(data, at, CLOSING_USAGE_NULL))
    json = data.slice(deltaEnd, at + 2) + '}';
  else return undefined;
  return { text, json, logprobs, finishReason, kept: false };
}

/** The one change a delta's text may need: `data[start, end)` becomes `text`. */
interface DeltaEdit {
  start: number;
  end: number;
  text: string;
}

/**
 * Scratch records of one read, reused (the reader runs to its end without yielding, and reads
 * them before it returns): one chunk's worth of garbage fewer in a path that runs per chunk.
 */
const EDIT: DeltaEdit = { start: -1, end: -1, text: '' };
const READ: StringRead = { value: null };

/**
 * The delta's members from `at` (just inside its `{`) into `delta`; the index just past its `}`,
 * or -1. `reasoning_content` becomes `reasoning` when it has text and goes when it has none (as
 * the translation's moveReasoningContent does): `edit` says how its text changes.
 */
function readDelta(data: string, at: number, delta: Delta, edit: DeltaEdit): number {
  const opening = at;
  if (data.charCodeAt(at) === 125 /* } */) return at + 1;
  const read = READ;
  let sawReasoning = false;
  for (;;) {
    const memberStart = at;
    if (textAt(data, at, '"content":')) {
      if (delta.content !== undefined) return -1;
      at = readNullableString(data, at + 10, read);
      delta.content = read.value;
    } else if (textAt(data, at, '"role":"assistant"')) {
      if (delta.role !== undefined) return -1;
      delta.role = 'assistant';
      at += 18;
    } else if (textAt(data, at, '"refusal":')) {
      if (delta.refusal !== undefined) return -1;
      at = readNullableString(data, at + 10, read);
      delta.refusal = read.value;
    } else if (textAt(data, at, TOOL_CALL_OPENING)) {
      // One call's next piece of arguments, as OpenAI and vLLM stream them after the call's first chunk.
      if (delta.tool_calls !== undefined) return -1;
      const indexStart = at + TOOL_CALL_OPENING.length;
      const indexEnd = digitsEnd(data, indexStart);
      if (indexEnd === -1 || !textAt(data, indexEnd, ARGUMENTS_KEY)) return -1;
      at = readNullableString(data, indexEnd + ARGUMENTS_KEY.length, read);
      if (at === -1 || read.value === null || !textAt(data, at, TOOL_CALL_CLOSING)) return -1;
      delta.tool_calls = [{ index: readInteger(data, indexStart, indexEnd), function: { arguments: read.value } }];
      at += TOOL_CALL_CLOSING.length;
    } else if (textAt(data, at, REASONING_CONTENT_KEY)) {
      if (sawReasoning) return -1;
      sawReasoning = true;
      at = readNullableString(data, at + REASONING_CONTENT_KEY.length, read);
      if (at === -1) return -1;
      if (read.value !== null && read.value !== '') {
        delta.reasoning = read.value;
        // The key renamed where it stands.
        edit.start = memberStart;
        edit.end = memberStart + REASONING_CONTENT_KEY.length;
        edit.text = '"reasoning":';
      } else {
        // Null or empty: the member goes, with the comma before it, or after it when it is first.
        edit.start = memberStart > opening ? memberStart - 1 : memberStart;
        edit.end = memberStart > opening || data.charCodeAt(at) !== 44 /* , */ ? at : at + 1;
        edit.text = '';
      }
    } else {
      return -1;
    }
    if (at === -1) return -1;
    const code = data.charCodeAt(at);
    if (code === 125 /* } */) return at + 1;
    if (code !== 44 /* , */) return -1;
    at++;
  }
}

interface StringRead {
  value: string | null;
}

/** A string (escapes decoded) or null at `at` into `read.value`; the index just past it, or -1. */
function readNullableString(data: string, at: number, read: StringRead): number {
  if (data.charCodeAt(at) !== 34 /* " */) {
    if (!textAt(data, at, 'null')) return -1;
    read.value = null;
    return at + 4;
  }
  // The closing quote, escapes skipped; a control character turns the string down.
  let escaped = false;
  let end = -1;
  for (let index = at + 1; index < data.length; index++) {
    const code = data.charCodeAt(index);
    if (code === 34) {
      end = index;
      break;
    }
    if (code === 92 /* \ */) {
      escaped = true;
      index++;
    } else if (code < 32) return -1;
  }
  if (end === -1) return -1;
  const value = escaped ? decodeContent(data, at, end) : data.slice(at + 1, end);
  if (value === undefined) return -1;
  read.value = value;
  return end + 1;
}

/** The literal `data[start..end]` (quotes included, an escape in it) as its value; undefined when an escape is not JSON's. */
function decodeContent(data: string, start: number, end: number): string | undefined {
  try {
    return JSON.parse(data.slice(start, end + 1)) as string;
  } catch {
    return undefined;
  }
}

/** From just after an opening quote: the index of the closing quote of a string with no escape nor control character, or -1. */
function plainStringEnd(data: string, at: number): number {
  for (let index = at; index < data.length; index++) {
    const code = data.charCodeAt(index);
    if (code === 34) return index;
    if (code === 92 || code < 32) return -1;
  }
  return -1;
}

/** The end of a JSON non-negative integer at `at` (no leading zero, at most 15 digits: exact as a number), or -1. */
function digitsEnd(data: string, at: number): number {
  let index = at;
  while (index < data.length && index - at < 16) {
    const code = data.charCodeAt(index);
    if (code < 48 || code > 57) break;
    index++;
  }
  const digits = index - at;
  // What follows (a fraction, an exponent) fails the caller's check of the next fixed part.
  if (digits === 0 || digits > 15 || (digits > 1 && data.charCodeAt(at) === 48)) return -1;
  return index;
}

function readInteger(data: string, start: number, end: number): number {
  let value = 0;
  for (let index = start; index < end; index++) value = value * 10 + (data.charCodeAt(index) - 48);
  return value;
}

/**
 * An opening or closing met a second time is kept as strings of their own. A slice of an event's
 * data points into the whole read it came from (the SSE decoder slices its buffer), and what a
 * stream remembers lives as long as the stream: copied, one opening and one closing stay alive
 * instead of a read of up to 64 KB per open stream. Only once it repeats: a stream whose chunks
 * all differ there would pay the copy on every chunk (three times the chunk's cost, measured).
 * JSON's round trip copies every code unit exactly, lone surrogates included.
 */
function keep(part: Opening | Closing): void {
  part.text = detached(part.text);
  part.json = detached(part.json);
  if ('fingerprint' in part && part.fingerprint !== undefined) part.fingerprint = detached(part.fingerprint);
  part.kept = true;
}

function detached(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/** `data.startsWith(text, at)`, written as slice and compare: three times faster in V8 for these lengths. */
function textAt(data: string, at: number, text: string): boolean {
  return data.slice(at, at + text.length) === text;
}

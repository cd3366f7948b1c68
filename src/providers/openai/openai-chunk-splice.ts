/**
 * The second cheap path of the OpenAI-compatible stream decoder, for chunks the compact reader
 * (openai-compact-chunk.ts) turns down: other keys, several choices, tool call deltas. Many of
 * those are still the chunk the gateway sends but for their `id` and `model`: then the parsed
 * chunk is renamed in place and the upstream's own JSON text passed on with ours spliced in,
 * instead of a translated copy being built and serialised again. Anything else (usage to take
 * out, quirks to smooth, another key order, escapes in the id or model) returns undefined, and
 * the decoder translates the chunk in full.
 */

/** Our `id` and `model` for one stream, as JSON string literals (quotes included), made once. */
export interface SplicedIdentity {
  idJson: string;
  modelJson: string;
}

const ID_OPENING = '{"id":"';
/** From the id's closing quote to the model's opening one: OpenAI's own key order. */
const OBJECT_AND_CREATED = '","object":"chat.completion.chunk","created":';
const MODEL_KEY = ',"model":"';
/** OpenAI's `"usage":null` on every chunk but the last (with include_usage): ours leave it out. */
const USAGE_NULL_END = ',"usage":null}';

/**
 * Our chunk's JSON text when the checked wire chunk (parsed from `data`) needs only its id and
 * model changed, else undefined. On success the caller renames `wire` to match (renameInPlace).
 */
export function splicedChunkText(
  data: string,
  wire: Record<string, unknown>,
  ours: SplicedIdentity,
): string | undefined {
  if (!needsOnlyIdentity(wire)) return undefined;
  const id = wire.id;
  const model = wire.model;
  const created = wire.created;
  if (typeof id !== 'string' || typeof model !== 'string' || typeof created !== 'number') return undefined;
  // The text must start with the id, object, created and model as OpenAI writes them, each
  // matching the parsed value: then the id's and model's literals are known to end where we cut.
  if (!textAt(data, 0, ID_OPENING) || !textAt(data, ID_OPENING.length, id)) return undefined;
  const idEnd = ID_OPENING.length + id.length;
  if (!textAt(data, idEnd, OBJECT_AND_CREATED)) return undefined;
  let at = idEnd + OBJECT_AND_CREATED.length;
  const createdText = String(created);
  if (!textAt(data, at, createdText)) return undefined;
  at += createdText.length;
  if (!textAt(data, at, MODEL_KEY)) return undefined;
  const modelStart = at + MODEL_KEY.length;
  const modelEnd = modelStart + model.length;
  if (!textAt(data, modelStart, model) || data.charCodeAt(modelEnd) !== 34 /* " */) return undefined;
  // An escape before the model's end would mean a literal's text is not its value (`\"` in an id).
  const backslash = data.indexOf('\\');
  if (backslash !== -1 && backslash < modelEnd) return undefined;
  // Not searched for: a top-level key written twice (JSON.parse keeps the last copy). RFC 8259
  // leaves such objects to each reader; a search for a second `"model":` costs a chunk more than
  // all the rest here (multi-character indexOf), so such an upstream's later copy goes out as it
  // wrote it. Only its own values can show that way, never another stream's.
  let tail: string;
  if (wire.usage === null) {
    // `,"usage":null}` ending the text is a top-level member: inside a string its quotes would be escaped.
    if (!data.endsWith(USAGE_NULL_END)) return undefined;
    tail = data.slice(modelEnd + 1, data.length - USAGE_NULL_END.length) + '}';
  } else {
    tail = data.slice(modelEnd + 1);
  }
  return '{"id":' + ours.idJson + data.slice(idEnd + 1, modelStart - 1) + ours.modelJson + tail;
}

/** `data.startsWith(text, at)`, written as slice and compare: three times faster in V8 for these lengths. */
function textAt(data: string, at: number, text: string): boolean {
  return data.slice(at, at + text.length) === text;
}

/**
 * The parsed chunk as the spliced text says: our id and model, and no usage. `usage: null`
 * becomes undefined rather than deleted: a delete turns the object into a slow dictionary,
 * and undefined is what every reader (and JSON.stringify) takes for absent.
 */
export function renameInPlace(wire: Record<string, unknown>, id: string, model: string): void {
  wire.id = id;
  wire.model = model;
  if (wire.usage === null) wire.usage = undefined;
}

/**
 * Whether the full translation would leave the chunk as it is but for id and model: no usage to
 * take out, no null fingerprint to drop, every choice with its index, finish_reason and delta,
 * and no delta quirk to smooth (content parts, reasoning_content, tool calls without index).
 */
function needsOnlyIdentity(wire: Record<string, unknown>): boolean {
  if (wire.x_groq !== undefined || (wire.usage !== undefined && wire.usage !== null)) return false;
  if (wire.system_fingerprint === null || wire.object !== 'chat.completion.chunk') return false;
  const choices = wire.choices;
  if (!Array.isArray(choices) || choices.length === 0) return false;
  for (let index = 0; index < choices.length; index++) {
    const choice = choices[index] as Record<string, unknown>;
    if (typeof choice.index !== 'number' || choice.finish_reason === undefined) return false;
    const delta = choice.delta as Record<string, unknown> | null | undefined;
    if (delta === null || delta === undefined) return false;
    const content = delta.content;
    if (content !== undefined && content !== null && typeof content !== 'string') return false;
    if (delta.reasoning_content !== undefined) return false;
    if (delta.tool_calls !== undefined && !toolCallsAsTheyGo(delta.tool_calls)) return false;
  }
  return true;
}

/** Tool call deltas that already carry their index, and `type: "function"` whenever a type or id is there. */
function toolCallsAsTheyGo(calls: unknown): boolean {
  if (!Array.isArray(calls)) return false;
  for (let index = 0; index < calls.length; index++) {
    const call = calls[index] as Record<string, unknown>;
    if (typeof call.index !== 'number') return false;
    if (call.type === undefined ? call.id !== undefined : call.type !== 'function') return false;
  }
  return true;
}

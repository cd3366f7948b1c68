import { describe, expect, it } from 'vitest';
import { fixtureText, listFixtures } from '../../../test/helpers/fixtures.js';
import { testTranslationContext } from '../../../test/helpers/translation-context.js';
import type { ChatCompletionChunk } from '../../shared/openai-types.js';
import type { StreamEvent } from '../provider-adapter.js';
import { OpenAIStreamDecoder } from './openai-stream-decoder.js';
import { seededIntegers } from '../../../test/helpers/seeded-integers.js';
import { upstreamChunk as chunk } from '../../../test/helpers/openai-chunk-text.js';

/**
 * The spliced path must give what the full translation gives. The reference is the same decoder
 * fed the same chunk with a space in front: that text never starts as OpenAI's compact layout
 * does, so it always takes the full translation.
 */
const encoder = new TextEncoder();

function decodeOne(data: string): StreamEvent[] {
  const decoder = new OpenAIStreamDecoder(testTranslationContext());
  return decoder.push(encoder.encode(`data: ${data}\n\n`));
}

/** `data: ` takes one space off; the second stays in the data and the splice declines it. */
const asReference = (data: string) => ' ' + data;

type ChunkEvent = Extract<StreamEvent, { type: 'chunk' }>;
const chunkOf = (events: StreamEvent[]) => events.find((event): event is ChunkEvent => event.type === 'chunk');

/** Whether the spliced path took `data`, after checking it agrees with the full translation. */
function agreesWithTranslation(data: string): boolean {
  const fast = decodeOne(data);
  const reference = decodeOne(asReference(data));
  const spliced = chunkOf(fast);
  const translated = chunkOf(reference);
  expect(translated?.json).toBeUndefined();
  expect(fast.map((event) => event.type)).toEqual(reference.map((event) => event.type));
  if (!spliced || spliced.json === undefined) {
    expect(fast).toEqual(reference);
    return false;
  }
  expect(spliced.chunk).toEqual(translated!.chunk);
  expect(JSON.parse(spliced.json)).toEqual(translated!.chunk);
  return true;
}

/** The data payloads of every recorded OpenAI-compatible stream. */
function recordedPayloads(): string[] {
  const payloads: string[] = [];
  for (const family of ['openai', 'groq', 'deepseek', 'mistral']) {
    for (const name of listFixtures(family)) {
      if (name.endsWith('.chunks.jsonl'))
        payloads.push(
          ...fixtureText(family, name)
            .split('\n')
            .filter((line) => line.trim() !== ''),
        );
      else if (name.endsWith('.sse'))
        for (const line of fixtureText(family, name).split(/\r?\n/))
          if (line.startsWith('data: ') && line !== 'data: [DONE]') payloads.push(line.slice(6));
    }
  }
  // Error events end a stream whichever way; they are the decoder's own tests.
  return payloads.filter((data) => (JSON.parse(data) as { error?: unknown }).error === undefined);
}

describe('a chunk that needs only our id and model is passed on as written, renamed', () => {
  it('every recorded OpenAI-compatible chunk: spliced or translated, the same chunk (and most are spliced)', () => {
    const payloads = recordedPayloads();
    let spliced = 0;
    for (const data of payloads) if (agreesWithTranslation(data)) spliced++;
    expect(payloads.length).toBeGreaterThan(100);
    expect(spliced).toBeGreaterThan(payloads.length / 2);
  });

  it('the common chunk is written with our id and model and nothing else changed', () => {
    const [event] = decodeOne(chunk());
    const context = testTranslationContext();
    expect(event).toMatchObject({ type: 'chunk' });
    const { json } = event as ChunkEvent;
    expect(json).toBe(
      chunk()
        .replace('"chatcmpl-up"', JSON.stringify(context.completionId))
        .replace('"up-model"', JSON.stringify(context.publicModel)),
    );
  });

  it.each([
    ['the role chunk', chunk({}, { delta: { role: 'assistant', content: '', refusal: null } })],
    ['the finish chunk', chunk({}, { delta: {}, finish_reason: 'stop' })],
    ['content with escapes after the model', chunk({}, { delta: { content: 'a "quoted"\nline \\ \u2028 é' } })],
    ['OpenAI\'s "usage":null last', chunk({ usage: null })],
    [
      'tool call arguments with their index',
      chunk({}, { delta: { tool_calls: [{ index: 0, function: { arguments: '{"a' } }] } }),
    ],
    ['null content', chunk({}, { delta: { content: null } })],
    ['fields the gateway does not read', chunk({ service_tier: 'default', obfuscation: 'x' }, { stop_reason: null })],
    ['DeepSeek reasoning', chunk({ usage: null }, { delta: { content: null, reasoning_content: 'Hmm' } })],
    ['DeepSeek content after reasoning', chunk({ usage: null }, { delta: { content: 'x', reasoning_content: null } })],
    ['no logprobs', chunk({}, { logprobs: undefined })],
  ])('spliced: %s', (_, data) => {
    expect(agreesWithTranslation(data)).toBe(true);
  });

  it.each([
    ['a usage object', chunk({ usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } })],
    ['"usage":null not last', JSON.stringify({ usage: null, ...JSON.parse(chunk()) })],
    ["Groq's x_groq", chunk({ x_groq: { id: 'req_1' } })],
    ['a null fingerprint', chunk({ system_fingerprint: null })],
    ['a choice without index', chunk({}, { index: undefined })],
    ['a choice without finish_reason', chunk({}, { finish_reason: undefined })],
    ['a null delta', chunk({}, { delta: null })],
    [
      'reasoning_content beside other keys',
      chunk({ service_tier: 'default' }, { delta: { reasoning_content: 'hmm' } }),
    ],
    ['content parts', chunk({}, { delta: { content: [{ type: 'text', text: 'a' }] } })],
    ['a tool call without index', chunk({}, { delta: { tool_calls: [{ function: { arguments: '{' } }] } })],
    [
      'a tool call with an id and no type',
      chunk({}, { delta: { tool_calls: [{ index: 0, id: 'call_1', function: { name: 'f' } }] } }),
    ],
    ['null tool_calls', chunk({}, { delta: { content: 'a', tool_calls: null } })],
    ['no choices', chunk({ choices: [] })],
    ['no created', chunk({ created: undefined })],
    ['an escape in the id', chunk({ id: 'chat"cmpl' })],
    ['an escaped character in the model', chunk({ model: 'up\\model' })],
    ['another key order', JSON.stringify({ object: 'chat.completion.chunk', ...JSON.parse(chunk()) })],
    ['a created written otherwise', chunk().replace('1770000000', '1.77e9')],
  ])('translated in full: %s', (_, data) => {
    expect(agreesWithTranslation(data)).toBe(false);
  });

  it('a spliced chunk is the parsed chunk, renamed: the event and its text agree', () => {
    const [event] = decodeOne(chunk({ usage: null }));
    const { chunk: parsed, json } = event as ChunkEvent;
    expect(parsed.usage).toBeUndefined();
    expect(JSON.parse(json!) as ChatCompletionChunk).toEqual(parsed);
  });
});

describe('mutated chunks (seeded): the spliced path never disagrees with the translation', () => {
  it('random characters put into the common chunk, wherever the result still parses', () => {
    const random = seededIntegers(31);
    const pieces = [
      '"',
      '\\',
      '\\"',
      ',',
      ':',
      '}',
      '{',
      ' ',
      'null',
      '"usage":null',
      '"model":"x",',
      '"id":"y",',
      '1',
      'é',
    ];
    const base = chunk({ usage: null }, { delta: { role: 'assistant', content: 'two words' } });
    let tried = 0;
    let fuzzSpliced = 0;
    for (let round = 0; round < 4000; round++) {
      let data = base;
      for (let edits = 1 + random(2); edits > 0; edits--) {
        const at = random(data.length + 1);
        data = data.slice(0, at) + pieces[random(pieces.length)] + data.slice(at);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(data);
      } catch {
        continue;
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) continue;
      let referenceError: unknown = null;
      try {
        decodeOne(' ' + data);
      } catch (error) {
        referenceError = error;
      }
      if (referenceError) {
        expect(() => decodeOne(data)).toThrow((referenceError as Error).message);
        continue;
      }
      tried++;
      if (agreesWithTranslation(data)) fuzzSpliced++;
    }
    // Both paths taken: many mutations keep the layout (spliced), many break it (translated).
    expect(tried).toBeGreaterThan(200);
    expect(fuzzSpliced).toBeGreaterThan(100);
    expect(fuzzSpliced).toBeLessThan(tried);
  });
});

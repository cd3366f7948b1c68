import { describe, expect, it } from 'vitest';
import { readCompactChunk, type CompactIdentity } from './openai-compact-chunk.js';
import { seededIntegers } from '../../../test/helpers/seeded-integers.js';
import { upstreamChunk as chunk } from '../../../test/helpers/openai-chunk-text.js';

/**
 * The compact reader against JSON.parse: whatever it reads must be valid JSON that parses to
 * the chunk it made (renamed), and its text must parse to the same. The decoder-level agreement
 * with the full translation is in openai-chunk-splice.test.ts.
 */
const ours: CompactIdentity = {
  id: 'chatcmpl-ours',
  model: 'test/public',
  idJson: '"chatcmpl-ours"',
  modelJson: '"test/public"',
};

/** JSON.parse's reading of `data`, renamed as the gateway sends it (no `usage: null`, reasoning_content as reasoning). */
function expected(data: string): Record<string, unknown> {
  const parsed = JSON.parse(data) as Record<string, any>;
  delete parsed.usage;
  for (const choice of parsed.choices ?? []) {
    const delta = choice?.delta;
    if (delta && typeof delta === 'object' && 'reasoning_content' in delta) {
      if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '')
        delta.reasoning = delta.reasoning_content;
      delete delta.reasoning_content;
    }
  }
  return { ...parsed, id: ours.id, model: ours.model };
}

function readsAsJsonParse(data: string): boolean {
  const read = readCompactChunk(data, ours);
  if (read === undefined) return false;
  expect(read.chunk).toEqual(expected(data));
  expect(JSON.parse(read.json)).toEqual(expected(data));
  return true;
}

describe('the compact chunk reader', () => {
  it.each([
    ['a content delta', chunk()],
    ['no fingerprint', chunk({ system_fingerprint: undefined })],
    ['the role chunk', chunk({}, { delta: { role: 'assistant', content: '', refusal: null } })],
    ['the finish chunk', chunk({}, { delta: {}, finish_reason: 'stop' })],
    ['content with escapes', chunk({}, { delta: { content: 'a "quoted"\nline \\ \t \u0001 é 😀' } })],
    ['null content', chunk({}, { delta: { content: null } })],
    ['a refusal', chunk({}, { delta: { refusal: 'No.' } })],
    ['"usage":null last', chunk({ usage: null })],
    ['another choice index', chunk({}, { index: 3 })],
    ['no logprobs (Ollama, Mistral)', chunk({}, { logprobs: undefined })],
    ['DeepSeek reasoning', chunk({ usage: null }, { delta: { content: null, reasoning_content: 'The "plan"' } })],
    ['DeepSeek reasoning opening', chunk({}, { delta: { role: 'assistant', content: null, reasoning_content: '' } })],
    ['reasoning_content null after content', chunk({}, { delta: { content: 'x', reasoning_content: null } })],
    ['reasoning_content first and empty', chunk({}, { delta: { reasoning_content: '', content: 'x' } })],
    ['reasoning_content alone, null', chunk({}, { delta: { reasoning_content: null } })],
    [
      'tool call arguments',
      chunk({}, { delta: { tool_calls: [{ index: 1, function: { arguments: '{"city": "Par' } }] } }),
    ],
  ])('reads %s as JSON.parse does', (_, data) => {
    expect(readsAsJsonParse(data)).toBe(true);
  });

  it('writes the upstream text with only the id and model changed', () => {
    const read = readCompactChunk(chunk({ usage: null }), ours);
    expect(read?.json).toBe(chunk().replace('"chatcmpl-up"', ours.idJson).replace('"up-model"', ours.modelJson));
  });

  it.each([
    ['another key', chunk({ service_tier: 'default' })],
    [
      'two choices',
      chunk({
        choices: [
          { index: 0, delta: {}, logprobs: null, finish_reason: null },
          { index: 1, delta: {}, logprobs: null, finish_reason: null },
        ],
      }),
    ],
    [
      'a tool call with its id',
      chunk(
        {},
        {
          delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }] },
        },
      ),
    ],
    [
      'two tool calls',
      chunk(
        {},
        {
          delta: {
            tool_calls: [
              { index: 0, function: { arguments: '{' } },
              { index: 1, function: { arguments: '{' } },
            ],
          },
        },
      ),
    ],
    ['null arguments', chunk({}, { delta: { tool_calls: [{ index: 0, function: { arguments: null } }] } })],
    [
      'a second reasoning_content',
      chunk().replace('{"content":"Hi"}', '{"reasoning_content":"a","reasoning_content":"b"}'),
    ],
    ['reasoning beside reasoning_content', chunk({}, { delta: { reasoning: 'a', reasoning_content: 'b' } })],
    ['content parts', chunk({}, { delta: { content: [{ type: 'text', text: 'a' }] } })],
    ['a role other than assistant', chunk({}, { delta: { role: 'tool' } })],
    ['a usage object', chunk({ usage: { prompt_tokens: 1 } })],
    ['an escape in the id', chunk({ id: 'a"b' })],
    ['an escape in the fingerprint', chunk({ system_fingerprint: 'a\\b' })],
    ['a null fingerprint', chunk({ system_fingerprint: null })],
    ['whitespace', chunk().replace('"created":', '"created": ')],
    ['a fractional created', chunk().replace('1770000000', '1770000000.5')],
    ['an exponent', chunk().replace('1770000000', '1770000000e0')],
    ['a leading zero', chunk({}, { index: 0 }).replace('"index":0', '"index":00')],
    ['a negative index', chunk({}, { index: -1 })],
    ['a raw control character in content', chunk().replace('"Hi"', '"H\u0001i"')],
    ['an invalid escape in content', chunk().replace('"Hi"', '"H\\xi"')],
    ['a duplicate content', chunk().replace('{"content":"Hi"}', '{"content":"Hi","content":"Ho"}')],
    ['text after the end', chunk() + ' '],
    ['a cut text', chunk().slice(0, -2)],
  ])('turns down %s', (_, data) => {
    expect(readCompactChunk(data, ours)).toBeUndefined();
  });

  it('random edits (seeded): whatever it reads, JSON.parse reads the same', () => {
    const random = seededIntegers(7);
    const pieces = [
      '"',
      '\\',
      '\\n',
      '\\u00',
      '\u0001',
      ',',
      ':',
      '}',
      ']',
      '{',
      ' ',
      'null',
      '0',
      '1',
      '.5',
      'e1',
      '-',
      'é',
      '"role":"assistant",',
    ];
    const bases = [
      chunk({ usage: null }, { delta: { role: 'assistant', content: 'two words', refusal: null } }),
      chunk({ system_fingerprint: undefined }, { finish_reason: 'stop', delta: {}, logprobs: undefined }),
      chunk({ usage: null }, { delta: { content: null, reasoning_content: 'a thought' } }),
      chunk({}, { delta: { reasoning_content: '', content: 'x' } }),
      chunk({ usage: null }, { delta: { tool_calls: [{ index: 0, function: { arguments: '{"a": 1' } }] } }),
    ];
    let read = 0;
    let tried = 0;
    for (let round = 0; round < 10000; round++) {
      let data = bases[round % bases.length];
      for (let edits = 1 + random(2); edits > 0; edits--) {
        const at = random(data.length + 1);
        data = data.slice(0, at) + pieces[random(pieces.length)] + data.slice(at);
      }
      tried++;
      const compact = readCompactChunk(data, ours);
      if (compact === undefined) continue;
      read++;
      expect(compact.chunk).toEqual(expected(data));
      expect(JSON.parse(compact.json)).toEqual(expected(data));
    }
    // Both ways taken: edits inside strings keep the shape, most others break it.
    expect(read).toBeGreaterThan(100);
    expect(read).toBeLessThan(tried);
  });
});

describe("the compact reader's memory of a stream's last chunk (its opening and closing)", () => {
  const identity = (): CompactIdentity => ({ ...ours, last: undefined });

  /** Read with the stream's identity (so the last chunk's opening and closing may be reused) and alone: the same. */
  function readsAsAlone(stream: CompactIdentity, data: string): boolean {
    const remembered = readCompactChunk(data, stream);
    const alone = readCompactChunk(data, identity());
    expect(remembered).toEqual(alone);
    expect(remembered?.json).toBe(alone?.json);
    return remembered !== undefined;
  }

  it('a chunk after another reads as it does alone, whether it repeats the opening, the closing, both or neither', () => {
    const stream = identity();
    const cases = [
      chunk({}, { delta: { role: 'assistant', content: '', refusal: null } }),
      chunk(),
      chunk({}, { delta: { content: 'the text "usage":{"prompt_tokens":1} inside' } }),
      chunk({}, { delta: { content: 'é\\n😀 "quoted"' } }),
      chunk({ usage: null }),
      chunk({}, { delta: { content: null, reasoning_content: 'thinking' } }),
      chunk({}, { delta: { reasoning_content: '', content: 'x' } }),
      chunk({}, { delta: { content: 'x', reasoning_content: null } }),
      chunk({ id: 'chatcmpl-other' }),
      chunk({ created: 1_770_000_001 }),
      chunk({ system_fingerprint: undefined }),
      chunk({}, { index: 2 }),
      chunk({}, { logprobs: undefined }),
      chunk({}, { delta: {}, finish_reason: 'stop' }),
      chunk({}, { delta: {}, finish_reason: 'length' }),
      chunk(),
    ];
    for (const data of cases) expect(readsAsAlone(stream, data)).toBe(true);
  });

  it('a chunk that begins as the last one did but does not end as the shape does is turned down', () => {
    const stream = identity();
    expect(readCompactChunk(chunk(), stream)).toBeDefined();
    for (const data of [
      chunk() + ' ',
      chunk().slice(0, -1),
      chunk({ service_tier: 'default' }),
      chunk({ usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }),
      chunk().replace('"finish_reason":null', '"finish_reason":null,"x":1'),
      chunk().replace('{"content":"Hi"}', '{"content":"H\u0001i"}'),
      chunk().replace('{"content":"Hi"}', '{"content":"Hi","content":"Ho"}'),
      // The opening's last byte is part of it: a delta that is not an object is not skipped over.
      chunk().replace('"delta":{', '"delta":['),
      chunk().replace('"delta":{', '"delta": '),
    ]) {
      expect(readsAsAlone(stream, data)).toBe(false);
      // And the next good chunk is still read right after it.
      expect(readsAsAlone(stream, chunk({}, { delta: { content: 'next' } }))).toBe(true);
    }
  });

  it('a chunk that ends as the last one did but begins otherwise is read in full (or turned down)', () => {
    const stream = identity();
    expect(readCompactChunk(chunk(), stream)).toBeDefined();
    expect(readsAsAlone(stream, chunk().replace('"created":', '"created": '))).toBe(false);
    expect(readsAsAlone(stream, chunk({ model: 'another' }))).toBe(true);
    expect(readsAsAlone(stream, chunk({ id: 'a"b' }))).toBe(false);
  });

  it('random edits (seeded), read one after another with one identity: each as it reads alone', () => {
    const random = seededIntegers(11);
    const pieces = ['"', '\\', '\\n', '\u0001', ',', '}', ']', ' ', 'null', '0', 'usage', '"usage":{', 'é'];
    const bases = [
      chunk(),
      chunk({ usage: null }),
      chunk({}, { delta: {}, finish_reason: 'stop' }),
      chunk({}, { delta: { content: null, reasoning_content: 'a thought' } }),
      chunk({ system_fingerprint: undefined }, { logprobs: undefined }),
    ];
    const stream = identity();
    let read = 0;
    let edited = 0;
    let openingReused = 0;
    for (let round = 0; round < 6000; round++) {
      let data = bases[random(bases.length)];
      // Half the chunks as they are (the reused path), half edited anywhere. (The generator's low
      // bit alternates, so the coin is taken from a wider range.)
      if (random(1000) < 500) {
        edited++;
        const at = random(data.length + 1);
        data = data.slice(0, at) + pieces[random(pieces.length)] + data.slice(at);
      }
      const opening = stream.last?.opening.text;
      if (opening !== undefined && data.startsWith(opening)) openingReused++;
      if (readsAsAlone(stream, data)) read++;
    }
    // Both ways taken (about 3,000 edited, 3,200 read, 2,400 reusing the opening in this sequence).
    expect(edited).toBeGreaterThan(2500);
    expect(read).toBeGreaterThan(2000);
    expect(read).toBeLessThan(4500);
    expect(openingReused).toBeGreaterThan(2000);
  });
});

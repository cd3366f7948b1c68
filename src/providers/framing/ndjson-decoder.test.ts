import { describe, expect, it } from 'vitest';
import { fixtureBytes } from '../../../test/helpers/fixtures.js';
import { NdjsonDecoder, NdjsonFormatError } from './ndjson-decoder.js';

const fixture = (name: string) => new Uint8Array(fixtureBytes('ollama', name));

describe('NdjsonDecoder', () => {
  it.each([
    'api-generate.stream.docs-example.ndjson',
    'api-generate.stream.mid-stream-error.docs-example.ndjson',
    'api-chat.stream.tool-call.docs-example.ndjson',
  ])('%s: one value per line, the same at every split point', (name) => {
    const bytes = fixture(name);
    const expected = new TextDecoder()
      .decode(bytes)
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as unknown);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const decoder = new NdjsonDecoder();
      expect([...decoder.push(bytes.subarray(0, cut)), ...decoder.push(bytes.subarray(cut)), ...decoder.end()]).toEqual(
        expected,
      );
    }
  });

  it('keeps a multi-byte character split across reads', () => {
    const bytes = new TextEncoder().encode('{"a":"é€"}\r\n');
    const decoder = new NdjsonDecoder();
    const values = [...decoder.push(bytes.subarray(0, 7)), ...decoder.push(bytes.subarray(7)), ...decoder.end()];
    expect(values).toEqual([{ a: 'é€' }]);
  });

  it.each([
    ['{"a":1}\n{"b"', 'end'],
    ['not json\n', 'push'],
  ])('rejects a bad line (%j at %s)', (text, where) => {
    const decoder = new NdjsonDecoder();
    if (where === 'push') expect(() => decoder.push(new TextEncoder().encode(text))).toThrow(NdjsonFormatError);
    else {
      decoder.push(new TextEncoder().encode(text));
      expect(() => decoder.end()).toThrow(NdjsonFormatError);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { crc32 } from 'node:zlib';
import { AwsEventStreamDecoder, EventStreamFormatError, type EventStreamMessage } from './aws-event-stream-decoder.js';
import { encodeEventStreamMessage } from '../../../test/helpers/aws-event-stream-encoder.js';
import { fixtureBytes, fixtureText } from '../../../test/helpers/fixtures.js';

const STREAMS = ['converse-stream.text', 'converse-stream.tool-use', 'converse-stream.reasoning'];

function load(name: string): {
  bytes: Uint8Array;
  expected: Array<{ headers: Record<string, string>; payload: unknown }>;
} {
  const bytes = new Uint8Array(fixtureBytes('bedrock', `${name}.eventstream`));
  const expected = fixtureText('bedrock', `${name}.decoded.jsonl`)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { headers: Record<string, string>; payload: unknown });
  return { bytes, expected };
}

function simplify(messages: EventStreamMessage[]): Array<{ headers: Record<string, unknown>; payload: unknown }> {
  return messages.map((message) => ({
    headers: message.headers,
    payload: JSON.parse(new TextDecoder().decode(message.payload)),
  }));
}

describe('AwsEventStreamDecoder on recorded Bedrock streams', () => {
  for (const name of STREAMS) {
    it(`${name}: decodes every frame as recorded`, () => {
      const { bytes, expected } = load(name);
      const decoder = new AwsEventStreamDecoder();
      const messages = [...decoder.push(bytes), ...decoder.end()];
      expect(simplify(messages)).toEqual(expected);
    });

    it(`${name}: gives the same frames when the body is split at any byte boundary`, () => {
      const { bytes, expected } = load(name);
      // Two-piece splits around the first frames and the last ones (every boundary is also
      // exercised by the byte-by-byte pass below, which would be quadratic to repeat here).
      const cuts = [
        ...Array.from({ length: 700 }, (_, index) => index + 1),
        ...Array.from({ length: 400 }, (_, index) => bytes.length - 1 - index),
      ];
      for (const cut of cuts) {
        const decoder = new AwsEventStreamDecoder();
        const messages = [
          ...decoder.push(bytes.subarray(0, cut)),
          ...decoder.push(bytes.subarray(cut)),
          ...decoder.end(),
        ];
        expect(messages.length).toBe(expected.length);
      }
      const byteByByte = new AwsEventStreamDecoder();
      const messages: EventStreamMessage[] = [];
      for (let index = 0; index < bytes.length; index++)
        messages.push(...byteByByte.push(bytes.subarray(index, index + 1)));
      messages.push(...byteByByte.end());
      expect(simplify(messages)).toEqual(expected);
    });
  }

  it('rejects a frame whose message CRC does not match (a flipped payload byte)', () => {
    const { bytes } = load('converse-stream.text');
    const corrupted = bytes.slice();
    corrupted[100] ^= 0x01;
    expect(() => new AwsEventStreamDecoder().push(corrupted)).toThrow(/message checksum mismatch/);
  });

  it('rejects a frame whose prelude CRC does not match', () => {
    const { bytes } = load('converse-stream.text');
    const corrupted = bytes.slice();
    corrupted[9] ^= 0xff;
    expect(() => new AwsEventStreamDecoder().push(corrupted)).toThrow(EventStreamFormatError);
  });

  it('reports a stream cut inside a frame at end()', () => {
    const { bytes } = load('converse-stream.tool-use');
    const decoder = new AwsEventStreamDecoder();
    const messages = decoder.push(bytes.subarray(0, bytes.length - 7));
    expect(messages.length).toBeGreaterThan(0);
    expect(() => decoder.end()).toThrow(/ended inside a frame/);
  });

  it('rejects an absurd length instead of buffering forever', () => {
    const frame = encodeEventStreamMessage({ a: 'b' }, '{}');
    const view = new DataView(frame.buffer);
    view.setUint32(0, 64 * 1024 * 1024);
    // Recompute the prelude CRC so only the length is wrong.
    view.setUint32(8, crc32(frame.subarray(0, 8)));
    expect(() => new AwsEventStreamDecoder().push(frame)).toThrow(/out of range/);
  });

  it.each([
    ['string', { ':event-type': 'messageStart' }, { ':event-type': 'messageStart' }],
    ['empty headers', {}, {}],
  ])('round-trips frames built by our encoder (%s)', (_label, headers, expectedHeaders) => {
    const frame = encodeEventStreamMessage(headers, '{"x":1}');
    const [message] = new AwsEventStreamDecoder().push(frame);
    expect(message?.headers).toEqual(expectedHeaders);
    expect(new TextDecoder().decode(message?.payload)).toBe('{"x":1}');
  });

  it('decodes the typed header values AWS defines', () => {
    // Header block: bool true, int32, byte array, timestamp, uuid.
    const parts: number[] = [];
    const add = (name: string, type: number, value: number[]) =>
      parts.push(name.length, ...Buffer.from(name), type, ...value);
    add('t', 0, []);
    add('i', 4, [0xff, 0xff, 0xff, 0xfe]);
    add('b', 6, [0, 2, 0xca, 0xfe]);
    add('d', 8, [0, 0, 0, 0, 0, 0, 0x03, 0xe8]);
    add(
      'u',
      9,
      Array.from({ length: 16 }, (_, index) => index),
    );
    const headerBlock = Uint8Array.from(parts);
    const total = 12 + headerBlock.length + 4;
    const frame = new Uint8Array(total);
    const view = new DataView(frame.buffer);
    view.setUint32(0, total);
    view.setUint32(4, headerBlock.length);
    view.setUint32(8, crc32(frame.subarray(0, 8)));
    frame.set(headerBlock, 12);
    view.setUint32(total - 4, crc32(frame.subarray(0, total - 4)));
    const [message] = new AwsEventStreamDecoder().push(frame);
    expect(message?.headers.t).toBe(true);
    expect(message?.headers.i).toBe(-2);
    expect(message?.headers.b).toEqual(Uint8Array.from([0xca, 0xfe]));
    expect(message?.headers.d).toEqual(new Date(1000));
    expect(message?.headers.u).toBe('000102030405060708090a0b0c0d0e0f');
    expect(message?.payload.length).toBe(0);
  });
});

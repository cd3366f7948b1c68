/**
 * The binary `application/vnd.amazon.eventstream` framing (Bedrock ConverseStream, and other AWS
 * streaming APIs): bytes in, messages out, split across reads at any byte.
 *
 * A message is: total length (u32) · headers length (u32) · CRC32 of those 8 bytes (the prelude),
 * then the headers, the payload, and a CRC32 of everything before it. Both CRCs are checked, so a
 * corrupted or truncated frame is an error rather than garbage handed to JSON.parse.
 */
import { crc32 } from 'node:zlib';

type EventStreamHeaderValue = boolean | number | bigint | string | Uint8Array | Date;

export interface EventStreamMessage {
  headers: Record<string, EventStreamHeaderValue>;
  payload: Uint8Array;
}

/** A frame that cannot be decoded: bad length, CRC mismatch, unknown header type, or a cut-off stream. */
export class EventStreamFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EventStreamFormatError';
  }
}

const PRELUDE_LENGTH = 12;
const MESSAGE_CRC_LENGTH = 4;
const MINIMUM_MESSAGE_LENGTH = PRELUDE_LENGTH + MESSAGE_CRC_LENGTH;
/** AWS caps a message at 16 MiB; a larger length means we lost sync, so fail instead of buffering forever. */
const MAXIMUM_MESSAGE_LENGTH = 16 * 1024 * 1024;

export class AwsEventStreamDecoder {
  private buffer: Uint8Array = new Uint8Array(0);

  push(bytes: Uint8Array): EventStreamMessage[] {
    this.buffer = this.buffer.length === 0 ? bytes.slice() : concat(this.buffer, bytes);
    const messages: EventStreamMessage[] = [];
    while (this.buffer.length >= PRELUDE_LENGTH) {
      const view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength);
      const totalLength = view.getUint32(0);
      const headersLength = view.getUint32(4);
      const preludeCrc = view.getUint32(8);
      if (crc32(this.buffer.subarray(0, 8)) !== preludeCrc) {
        throw new EventStreamFormatError('event stream prelude checksum mismatch');
      }
      if (totalLength < MINIMUM_MESSAGE_LENGTH || totalLength > MAXIMUM_MESSAGE_LENGTH) {
        throw new EventStreamFormatError(`event stream message length ${totalLength} is out of range`);
      }
      if (headersLength > totalLength - MINIMUM_MESSAGE_LENGTH) {
        throw new EventStreamFormatError(`event stream headers length ${headersLength} exceeds the message`);
      }
      if (this.buffer.length < totalLength) break;
      const frame = this.buffer.subarray(0, totalLength);
      const messageCrc = view.getUint32(totalLength - MESSAGE_CRC_LENGTH);
      if (crc32(frame.subarray(0, totalLength - MESSAGE_CRC_LENGTH)) !== messageCrc) {
        throw new EventStreamFormatError('event stream message checksum mismatch');
      }
      const headers = decodeHeaders(frame.subarray(PRELUDE_LENGTH, PRELUDE_LENGTH + headersLength));
      const payload = frame.slice(PRELUDE_LENGTH + headersLength, totalLength - MESSAGE_CRC_LENGTH);
      messages.push({ headers, payload });
      this.buffer = this.buffer.subarray(totalLength);
    }
    return messages;
  }

  /** The body ended; a partly received frame means the stream was cut. */
  end(): EventStreamMessage[] {
    if (this.buffer.length > 0) {
      throw new EventStreamFormatError(`event stream ended inside a frame (${this.buffer.length} bytes left over)`);
    }
    return [];
  }
}

function decodeHeaders(bytes: Uint8Array): Record<string, EventStreamHeaderValue> {
  const headers: Record<string, EventStreamHeaderValue> = {};
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = new TextDecoder('utf-8', { fatal: true });
  let position = 0;
  const need = (count: number) => {
    if (position + count > bytes.length)
      throw new EventStreamFormatError('event stream header runs past the header block');
  };
  while (position < bytes.length) {
    need(1);
    const nameLength = view.getUint8(position);
    position += 1;
    need(nameLength + 1);
    const name = text.decode(bytes.subarray(position, position + nameLength));
    position += nameLength;
    const type = view.getUint8(position);
    position += 1;
    switch (type) {
      case 0:
        headers[name] = true;
        break;
      case 1:
        headers[name] = false;
        break;
      case 2:
        need(1);
        headers[name] = view.getInt8(position);
        position += 1;
        break;
      case 3:
        need(2);
        headers[name] = view.getInt16(position);
        position += 2;
        break;
      case 4:
        need(4);
        headers[name] = view.getInt32(position);
        position += 4;
        break;
      case 5:
        need(8);
        headers[name] = view.getBigInt64(position);
        position += 8;
        break;
      case 6:
      case 7: {
        need(2);
        const length = view.getUint16(position);
        position += 2;
        need(length);
        const value = bytes.subarray(position, position + length);
        headers[name] = type === 7 ? text.decode(value) : value.slice();
        position += length;
        break;
      }
      case 8:
        need(8);
        headers[name] = new Date(Number(view.getBigInt64(position)));
        position += 8;
        break;
      case 9:
        need(16);
        headers[name] = Buffer.from(bytes.subarray(position, position + 16)).toString('hex');
        position += 16;
        break;
      default:
        throw new EventStreamFormatError(`event stream header "${name}" has unknown type ${type}`);
    }
  }
  return headers;
}

function concat(first: Uint8Array, second: Uint8Array): Uint8Array {
  const joined = new Uint8Array(first.length + second.length);
  joined.set(first, 0);
  joined.set(second, first.length);
  return joined;
}

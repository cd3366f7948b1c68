import { crc32 } from 'node:zlib';

/**
 * Builds `application/vnd.amazon.eventstream` frames with string headers, for fake upstreams
 * and decoder tests (exception frames mid-stream, frames with bad checksums).
 */
export function encodeEventStreamMessage(headers: Record<string, string>, payload: Uint8Array | string): Uint8Array {
  const payloadBytes = typeof payload === 'string' ? new TextEncoder().encode(payload) : payload;
  const headerParts: Uint8Array[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const nameBytes = new TextEncoder().encode(name);
    const valueBytes = new TextEncoder().encode(value);
    const part = new Uint8Array(1 + nameBytes.length + 1 + 2 + valueBytes.length);
    const view = new DataView(part.buffer);
    part[0] = nameBytes.length;
    part.set(nameBytes, 1);
    part[1 + nameBytes.length] = 7;
    view.setUint16(2 + nameBytes.length, valueBytes.length);
    part.set(valueBytes, 4 + nameBytes.length);
    headerParts.push(part);
  }
  const headersLength = headerParts.reduce((sum, part) => sum + part.length, 0);
  const totalLength = 12 + headersLength + payloadBytes.length + 4;
  const frame = new Uint8Array(totalLength);
  const view = new DataView(frame.buffer);
  view.setUint32(0, totalLength);
  view.setUint32(4, headersLength);
  view.setUint32(8, crc32(frame.subarray(0, 8)));
  let position = 12;
  for (const part of headerParts) {
    frame.set(part, position);
    position += part.length;
  }
  frame.set(payloadBytes, position);
  view.setUint32(totalLength - 4, crc32(frame.subarray(0, totalLength - 4)));
  return frame;
}

/** A Bedrock event frame (`:message-type: event`) with a JSON payload. */
export function bedrockEventFrame(eventType: string, payload: unknown): Uint8Array {
  return encodeEventStreamMessage(
    { ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' },
    JSON.stringify(payload),
  );
}

/** A Bedrock exception frame, as sent when the model fails after the stream started. */
export function bedrockExceptionFrame(exceptionType: string, message: string): Uint8Array {
  return encodeEventStreamMessage(
    { ':exception-type': exceptionType, ':content-type': 'application/json', ':message-type': 'exception' },
    JSON.stringify({ message }),
  );
}

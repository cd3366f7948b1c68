/** Ways to cut a recorded body into pieces, so decoders see frames split across reads. */

/** Pieces of `size` bytes (the last may be shorter). */
export function splitBytes(bytes: Uint8Array, size: number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += size) pieces.push(bytes.subarray(offset, offset + size));
  return pieces;
}

/** Pieces of 1–40 bytes cut at random places, seeded so a failure can be reproduced. */
export function splitRandomly(bytes: Uint8Array, seed: number): Uint8Array[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
  const pieces: Uint8Array[] = [];
  for (let start = 0; start < bytes.length;) {
    const size = 1 + Math.floor(next() * 40);
    pieces.push(bytes.subarray(start, start + size));
    start += size;
  }
  return pieces;
}

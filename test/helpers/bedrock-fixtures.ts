import { readFileSync } from 'node:fs';
import { bedrockEventFrame } from './aws-event-stream-encoder.js';

export const BEDROCK_FIXTURES = new URL('../fixtures/bedrock/', import.meta.url);

export function bedrockFixtureBytes(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(name, BEDROCK_FIXTURES)));
}

/**
 * `converse-stream.text.chunks.jsonl` holds decoded events keyed by event type (the SDK's shape);
 * re-framed here as the binary event stream Bedrock sends.
 */
export function reframedBedrockChunks(name: string): Uint8Array {
  const frames = readFileSync(new URL(name, BEDROCK_FIXTURES), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const event = JSON.parse(line) as Record<string, unknown>;
      const [eventType, payload] = Object.entries(event)[0]!;
      return bedrockEventFrame(eventType, payload);
    });
  return Buffer.concat(frames);
}

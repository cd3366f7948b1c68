import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bedrockEventFrame } from './aws-event-stream-encoder.js';

/**
 * The one loader of recorded provider traffic. The files live in the repository under
 * `test/fixtures/<family>/` (sources and licences in `test/fixtures/SOURCES.md`), so a fresh
 * clone has everything its tests read.
 */
const FIXTURES_DIRECTORY = fileURLToPath(new URL('../fixtures/', import.meta.url));

export function fixtureBytes(family: string, name: string): Buffer {
  return readFileSync(`${FIXTURES_DIRECTORY}${family}/${name}`);
}

export function fixtureText(family: string, name: string): string {
  return fixtureBytes(family, name).toString('utf8');
}

export function fixtureJson<T = Record<string, any>>(family: string, name: string): T {
  return JSON.parse(fixtureText(family, name)) as T;
}

/** Every fixture of a family, sorted: lets a test insist it covers them all. */
export function listFixtures(family: string): string[] {
  return readdirSync(`${FIXTURES_DIRECTORY}${family}`).sort();
}

// `.chunks.jsonl` recordings keep one payload a line, without the provider's framing; these put
// each family's framing back, so a replay reaches the gateway as the provider sends it.

function payloadLines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
}

/** OpenAI-compatible: one `data:` event a payload, then [DONE]. */
export function chunksJsonlAsSse(text: string): string {
  return (
    payloadLines(text)
      .map((line) => `data: ${line}\n\n`)
      .join('') + 'data: [DONE]\n\n'
  );
}

/** Anthropic: an `event:` line named after the payload's type before each `data:` line. */
export function reframeAnthropicJsonl(text: string): Buffer {
  return Buffer.from(
    payloadLines(text)
      .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`)
      .join(''),
  );
}

/** Gemini: `data: …` and CRLF CRLF. */
export function reframeGeminiJsonl(text: string): Buffer {
  return Buffer.from(
    payloadLines(text)
      .map((line) => `data: ${line}\r\n\r\n`)
      .join(''),
  );
}

/** Bedrock: decoded events keyed by event type (the SDK's shape) back into the binary event stream. */
export function reframeBedrockChunks(text: string): Buffer {
  return Buffer.concat(
    payloadLines(text).map((line) => {
      const [eventType, payload] = Object.entries(JSON.parse(line) as Record<string, unknown>)[0]!;
      return bedrockEventFrame(eventType, payload);
    }),
  );
}

/** The payloads of an SSE body's data lines (without [DONE]), for computing what a replay should yield. */
export function sseDataPayloads(text: string): Array<Record<string, unknown>> {
  return text
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
}

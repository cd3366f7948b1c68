import { readFileSync } from 'node:fs';

const FIXTURES = new URL('../fixtures/', import.meta.url);

export function fixtureBytes(family: string, name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(`${family}/${name}`, FIXTURES)));
}

export function fixtureText(family: string, name: string): string {
  return readFileSync(new URL(`${family}/${name}`, FIXTURES), 'utf8');
}

export function fixtureJson<T = Record<string, unknown>>(family: string, name: string): T {
  return JSON.parse(fixtureText(family, name)) as T;
}

/** `.chunks.jsonl` holds one payload a line; OpenAI-compatible providers send each as an SSE event, then [DONE]. */
export function chunksJsonlAsSse(text: string): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return lines.map((line) => `data: ${line}\n\n`).join('') + 'data: [DONE]\n\n';
}

/** The payloads of an SSE body's data lines (without [DONE]), for computing what a replay should yield. */
export function sseDataPayloads(text: string): Array<Record<string, unknown>> {
  return text
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
}

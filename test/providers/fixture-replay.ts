import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ProviderConfig } from '../../src/config/gateway-config.js';
import { DEFAULT_TIMEOUTS } from '../../src/config/gateway-config.js';
import type { StreamDecoder, StreamEvent, TranslationContext } from '../../src/providers/provider-adapter.js';
import type { Usage } from '../../src/shared/openai-types.js';

/** The recorded provider traffic, copied into the repository (see test/fixtures/SOURCES.md). */
export const FIXTURES_DIRECTORY = fileURLToPath(new URL('../fixtures/', import.meta.url));

export function readFixture(family: string, name: string): Buffer {
  return readFileSync(`${FIXTURES_DIRECTORY}${family}/${name}`);
}

export function listFixtures(family: string): string[] {
  return readdirSync(`${FIXTURES_DIRECTORY}${family}`).sort();
}

export function readJsonFixture<T = Record<string, any>>(family: string, name: string): T {
  return JSON.parse(readFixture(family, name).toString('utf8')) as T;
}

/** A payload-per-line recording put back into Anthropic's framing: an `event:` line named after the payload's type. */
export function reframeAnthropicJsonl(text: string): Buffer {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return Buffer.from(
    lines.map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`).join(''),
  );
}

/** A payload-per-line recording put back into Gemini's framing: `data: …` and CRLF CRLF. */
export function reframeGeminiJsonl(text: string): Buffer {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return Buffer.from(lines.map((line) => `data: ${line}\r\n\r\n`).join(''));
}

/** Splits bytes at random places (1–40 bytes a piece, seeded so a failure can be reproduced). */
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

export function runDecoder(decoder: StreamDecoder, pieces: Uint8Array[]): StreamEvent[] {
  const events = pieces.flatMap((piece) => decoder.push(piece));
  return [...events, ...decoder.end()];
}

export interface AggregatedStream {
  content: string;
  reasoning: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReasons: string[];
  usage: Usage | undefined;
  done: boolean;
  roles: string[];
}

/** What a client would assemble from the chunks, to compare with the recording. */
export function aggregate(events: StreamEvent[]): AggregatedStream {
  const result: AggregatedStream = {
    content: '',
    reasoning: '',
    toolCalls: [],
    finishReasons: [],
    usage: undefined,
    done: false,
    roles: [],
  };
  for (const event of events) {
    if (event.type === 'usage') result.usage = event.usage;
    else if (event.type === 'done') result.done = true;
    else {
      for (const choice of event.chunk.choices) {
        const delta = choice.delta;
        if (delta.role) result.roles.push(delta.role);
        if (typeof delta.content === 'string') result.content += delta.content;
        if (typeof delta.reasoning === 'string') result.reasoning += delta.reasoning;
        for (const call of delta.tool_calls ?? []) {
          const existing = (result.toolCalls[call.index] ??= { id: '', name: '', arguments: '' });
          if (call.id) existing.id = call.id;
          if (call.function?.name) existing.name = call.function.name;
          existing.arguments += call.function?.arguments ?? '';
        }
        if (choice.finish_reason) result.finishReasons.push(choice.finish_reason);
      }
    }
  }
  return result;
}

export function testProvider(overrides: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    id: 'test-provider',
    name: 'Test Provider',
    type: 'openai',
    baseUrl: 'https://upstream.example/v1',
    apiKey: 'upstream-key',
    headers: {},
    timeouts: DEFAULT_TIMEOUTS,
    maxConnections: 8,
    options: {},
    policies: {},
    fromEnvironment: false,
    ...overrides,
  };
}

/** A translation context with predictable ids (call_1, call_2, …). */
export function testContext(overrides: Partial<TranslationContext> = {}): TranslationContext {
  let counter = 0;
  return {
    provider: testProvider(),
    upstreamModel: 'upstream-model',
    publicModel: 'public/model',
    completionId: 'chatcmpl-test',
    created: 1_700_000_000,
    generateId: (prefix) => `${prefix}${++counter}`,
    stream: false,
    ...overrides,
  };
}

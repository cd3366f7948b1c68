import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream.js';
import { startTestGateway, type TestGateway } from './test-gateway.js';

export interface ProviderEndToEnd {
  /** The fake provider; its recorded requests are cleared before each test. */
  upstream: FakeUpstream;
  gateway: TestGateway;
  /** The official openai SDK pointed at the gateway with the test user's key, no retries. */
  client: OpenAI;
}

/**
 * The setup every provider end-to-end file shares: a fake upstream, a gateway whose config
 * (built from the upstream's URL) points at it, and an SDK client. Call it at the top of the file;
 * the fields are there once `beforeAll` has run.
 */
export function useProviderEndToEnd(
  configText: (upstreamUrl: string) => string,
  options: { clientTimeoutMs?: number } = {},
): ProviderEndToEnd {
  const harness = {} as ProviderEndToEnd;
  beforeAll(async () => {
    harness.upstream = await startFakeUpstream();
    harness.gateway = await startTestGateway({ configText: configText(harness.upstream.url) });
    harness.client = new OpenAI({
      apiKey: harness.gateway.apiKey,
      baseURL: harness.gateway.baseURL,
      maxRetries: 0,
      timeout: options.clientTimeoutMs ?? 10_000,
    });
  });
  afterAll(async () => {
    await harness.gateway?.close();
    await harness.upstream?.close();
  });
  beforeEach(() => {
    harness.upstream.requests.length = 0;
  });
  return harness;
}

/** The parts of a chat.completion.chunk a client assembles (the SDK's chunks and a recording's payloads alike). */
export interface StreamChunk {
  usage?: unknown;
  choices?: Array<{ delta: Record<string, any>; finish_reason: string | null }>;
}

export interface AssembledStream {
  content: string;
  reasoning: string;
  refusal: string;
  finishReasons: string[];
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  /** The last usage seen. */
  usage: any;
}

/** What a client assembles from a stream's chunks: text, reasoning, refusal, tool calls by index, finish reasons. */
export function assembleChunks(chunks: StreamChunk[]): AssembledStream {
  const assembled: AssembledStream = {
    content: '',
    reasoning: '',
    refusal: '',
    finishReasons: [],
    toolCalls: [],
    usage: undefined,
  };
  const toolCalls = new Map<number, { id: string; name: string; arguments: string }>();
  for (const chunk of chunks) {
    if (chunk.usage) assembled.usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      assembled.content += choice.delta.content ?? '';
      assembled.reasoning += choice.delta.reasoning ?? '';
      assembled.refusal += choice.delta.refusal ?? '';
      for (const call of choice.delta.tool_calls ?? []) {
        const entry = toolCalls.get(call.index) ?? { id: '', name: '', arguments: '' };
        entry.id += call.id ?? '';
        entry.name += call.function?.name ?? '';
        entry.arguments += call.function?.arguments ?? '';
        toolCalls.set(call.index, entry);
      }
      if (choice.finish_reason) assembled.finishReasons.push(choice.finish_reason);
    }
  }
  assembled.toolCalls = [...toolCalls.values()];
  return assembled;
}

/** Reads an SDK stream to its end and assembles it. */
export async function collectStream(stream: AsyncIterable<OpenAI.ChatCompletionChunk>): Promise<AssembledStream> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk as StreamChunk);
  return assembleChunks(chunks);
}

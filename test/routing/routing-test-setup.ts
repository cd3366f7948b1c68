import OpenAI from 'openai';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import type { CompletionOutcome } from '../../src/routing/completion-outcome.js';
import type { AppDeps } from '../../src/app.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

/**
 * Two fake upstreams behind one gateway: `bad` (made to fail in each test) and `good`.
 * test/multi: bad first, good second. test/bad-only and test/good-only: one endpoint each.
 * test/dead-first: a refused connection first, good second. test/search: good, with search.
 */
export function routingConfigText(badUrl: string, goodUrl: string, routing = ''): string {
  const timeouts = '{ connect_ms: 1000, first_byte_ms: 1500, idle_ms: 1000, total_ms: 8000 }';
  return `
providers:
  - { id: bad, name: Bad AI, type: openai, base_url: ${badUrl}, timeouts: ${timeouts} }
  - { id: good, name: Good AI, type: openai, base_url: ${goodUrl}, timeouts: ${timeouts} }
  - { id: dead, name: Dead AI, type: openai, base_url: 'http://127.0.0.1:9/v1', timeouts: ${timeouts} }
models:
  - id: test/multi
    endpoints:
      - { provider: bad, upstream_model: bad-model, pricing: { prompt: 0.1, completion: 0.2 } }
      - { provider: good, upstream_model: good-model, pricing: { prompt: 1, completion: 2 } }
  - id: test/bad-only
    endpoints:
      - { provider: bad, upstream_model: bad-model }
  - id: test/good-only
    endpoints:
      - { provider: good, upstream_model: good-model }
  - id: test/dead-first
    endpoints:
      - { provider: dead, upstream_model: dead-model }
      - { provider: good, upstream_model: good-model }
  - id: test/search
    endpoints:
      - { provider: good, upstream_model: good-search, supports_search: true }
routing:
  request_timeout_ms: 6000
  backoff_base_ms: 50
  backoff_max_ms: 200
${routing}
`;
}

export interface RoutingHarness {
  bad: MockUpstream;
  good: MockUpstream;
  gateway: TestGateway;
  client: OpenAI;
  outcomes: CompletionOutcome[];
  close(): Promise<void>;
}

export async function startRoutingHarness(routing = '', deps: Partial<AppDeps> = {}): Promise<RoutingHarness> {
  const bad = await startMockUpstream({ scenario: { chunkCount: 5 } });
  const good = await startMockUpstream({ scenario: { chunkCount: 5 } });
  const outcomes: CompletionOutcome[] = [];
  const gateway = await startTestGateway({
    configText: routingConfigText(bad.url, good.url, routing),
    deps: { observers: [{ onCompletion: (outcome) => outcomes.push(outcome) }], ...deps },
  });
  const client = new OpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseURL, maxRetries: 0, timeout: 15_000 });
  return {
    bad,
    good,
    gateway,
    client,
    outcomes,
    async close() {
      await gateway.close();
      await Promise.all([bad.close(), good.close()]);
    },
  };
}

export const hello = [{ role: 'user' as const, content: 'hello there' }];

/** Reads a whole SDK stream; returns the chunks and the error that ended it, if any. */
export async function drain(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
  let error: unknown = null;
  try {
    for await (const chunk of stream) chunks.push(chunk);
  } catch (caught) {
    error = caught;
  }
  return { chunks, error };
}

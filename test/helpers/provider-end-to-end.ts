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

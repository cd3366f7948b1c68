/**
 * Metering's cost on the chat path: the same gateway with metering off, on (usage events only),
 * and on with rpm/tpm limits and credits. Run: npx tsx test/metering/bench-metering.ts
 * (not a test; the project benchmark can call measure() with its own load generator).
 */
import { Agent, request } from 'undici';
import { startMockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText } from '../helpers/test-gateway.js';
import { applyLedgerEntry } from '../../src/credits/credit-ledger.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const CONCURRENCY = 32;

async function measure(
  label: string,
  configExtra: string,
  deps: Record<string, unknown>,
  keyInput: Record<string, unknown>,
  quiet = false,
) {
  const upstream = await startMockUpstream({ scenario: { chunkCount: 20 }, recordRequests: false });
  const gateway = await startTestGateway({ configText: testConfigText(upstream.url, configExtra), deps });
  await applyLedgerEntry(gateway.testStore.store, {
    userId: gateway.userId,
    kind: 'grant',
    amount: 1_000_000_000_000,
    reference: 'bench',
  });
  const key = await gateway.createKey(keyInput);
  const dispatcher = new Agent({ connections: CONCURRENCY });
  const body = JSON.stringify({
    model: 'test/chat',
    messages: [{ role: 'user', content: 'hello there' }],
    max_tokens: 20,
  });
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next++ < REQUESTS) {
      const started = performance.now();
      const response = await request(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        dispatcher,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body,
      });
      await response.body.text();
      if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  if (!quiet)
    console.log(
      `${label.padEnd(34)} ${(REQUESTS / seconds).toFixed(0).padStart(6)} req/s   p50 ${latencies[Math.floor(latencies.length / 2)].toFixed(2)} ms   p99 ${latencies[Math.floor(latencies.length * 0.99)].toFixed(2)} ms`,
    );
  await dispatcher.close();
  await gateway.close();
  await upstream.close();
}

// Warm-up (JIT, connection pools), not reported.
await measure('warm-up', '', {}, {}, true);
await measure('metering off', '', { metering: false }, {});
await measure('metering on (usage events)', '', {}, {});
await measure(
  'on + rpm/tpm limits + credits',
  'billing:\n  require_credits: true\n',
  {},
  { rpmLimit: 10_000_000, tpmLimit: 1_000_000_000 },
);
await measure('metering off (again)', '', { metering: false }, {});

import { BENCH_MODELS } from './bench-models.js';

/**
 * Our gateway's config for the benchmark: one OpenAI-compatible provider (the fake upstream)
 * serving each benchmark model. Connections are raised so 1,000 open streams are really open
 * upstream rather than queued in the pool; timeouts are long enough for the slowest stream.
 */
export function benchGatewayConfigText(upstreamUrl: string): string {
  const models = Object.values(BENCH_MODELS)
    .map(
      (model) => `
  - id: ${model}
    name: ${model}
    endpoints:
      - provider: fake
        upstream_model: ${model}
        pricing: { prompt: 0.5, completion: 1.5 }
        context_length: 128000`,
    )
    .join('');
  // No billing section: the default config, where charging is on (every request holds and is charged).
  return `
server:
  log_level: warn
providers:
  - id: fake
    name: Fake upstream
    type: openai
    base_url: ${upstreamUrl}
    api_key: bench-upstream-key
    max_connections: 4096
    timeouts: { connect_ms: 5000, first_byte_ms: 60000, idle_ms: 60000, total_ms: 600000 }
models:${models}
`;
}

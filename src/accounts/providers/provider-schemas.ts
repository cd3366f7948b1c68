import { Type, type TSchema } from '@sinclair/typebox';

/**
 * Response shapes of the provider routes, for the OpenAPI document (the routes send pre-serialized
 * cacheable bodies, so these describe them; test/accounts/openapi-responses.test.ts checks they agree).
 */
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Percentiles = Type.Object({ p50: nullable(Type.Number()), p95: nullable(Type.Number()) });
const Status = Type.Union(
  ['active', 'degraded', 'down', 'unknown'].map((value) => Type.Literal(value)),
  { description: 'from the measured uptime: down < 50 %, degraded < 95 % (docs/catalog.md)' },
);

export const StatsFiguresProperties = {
  requests: Type.Integer({ description: 'upstream attempts, failed ones and fallbacks included' }),
  successes: Type.Integer(),
  success_rate: nullable(Type.Number()),
  uptime: nullable(Type.Number({ description: 'share of attempts without a provider-side failure' })),
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  latency_ms: Percentiles,
  ttft_ms: Percentiles,
  tokens_per_second: nullable(Type.Number()),
};
const StatsFiguresSchema = Type.Object(StatsFiguresProperties);
export const PercentilesSchema = Percentiles;

export const PricingSchema = nullable(
  Type.Object(
    {
      prompt: Type.String(),
      completion: Type.String(),
      cache_read: nullable(Type.String()),
      cache_write: nullable(Type.String()),
      per_request: Type.String(),
      per_search: Type.String(),
    },
    { description: 'USD per million tokens (per request and per search: USD each), as exact decimal strings' },
  ),
);

const summaryProperties = {
  id: Type.String(),
  name: Type.String(),
  model_count: Type.Integer(),
  input_modalities: Type.Array(Type.String()),
  output_modalities: Type.Array(Type.String()),
  status: Status,
};

export const ProviderListSchema = Type.Object({ data: Type.Array(Type.Object(summaryProperties)) });

export const ProviderDetailSchema = Type.Object({
  ...summaryProperties,
  type: Type.String(),
  policies: Type.Object({}, { additionalProperties: true, description: 'as the operator wrote them in the config' }),
  models: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      upstream_model: Type.String(),
      pricing: PricingSchema,
      context_length: nullable(Type.Integer()),
    }),
  ),
  throughput_24h: Type.Object({
    requests: Type.Integer(),
    prompt_tokens: Type.Integer(),
    completion_tokens: Type.Integer(),
    tokens_per_second: nullable(Type.Number()),
  }),
});

export const ProviderStatsSchema = Type.Object({
  provider: Type.String(),
  window: Type.Union(['1h', '24h', '7d', '30d'].map((value) => Type.Literal(value))),
  from: Type.String(),
  to: Type.String(),
  bucket_seconds: Type.Integer(),
  totals: StatsFiguresSchema,
  buckets: Type.Array(Type.Object({ start: Type.String(), ...StatsFiguresProperties })),
  models: Type.Array(Type.Object({ model_id: Type.String(), ...StatsFiguresProperties })),
  status: Status,
});

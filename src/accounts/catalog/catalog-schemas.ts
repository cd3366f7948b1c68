import { Type, type TSchema } from '@sinclair/typebox';
import { PricingSchema, StatsFiguresProperties } from '../providers/provider-schemas.js';

/** Response shapes of the catalog routes, for the OpenAPI document (see provider-schemas.ts). */
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const CatalogEndpointSchema = Type.Object({
  provider: Type.String(),
  provider_name: Type.String(),
  upstream_model: Type.String(),
  pricing: PricingSchema,
  context_length: nullable(Type.Integer()),
  max_output_tokens: nullable(Type.Integer()),
  status: Type.Union(
    ['active', 'degraded', 'down', 'unknown'].map((value) => Type.Literal(value)),
    { description: 'this model at this provider over 24 h: down < 50 % uptime, degraded < 95 %' },
  ),
  stats_24h: Type.Optional(
    Type.Object(
      {
        requests: StatsFiguresProperties.requests,
        success_rate: StatsFiguresProperties.success_rate,
        uptime: StatsFiguresProperties.uptime,
        latency_ms: StatsFiguresProperties.latency_ms,
        ttft_ms: StatsFiguresProperties.ttft_ms,
        tokens_per_second: StatsFiguresProperties.tokens_per_second,
      },
      { description: 'on the model page only' },
    ),
  ),
});

export const CatalogModelSchema = Type.Object({
  id: Type.String(),
  model_path: Type.String({ description: 'the model page path segment (spec §2.4)' }),
  name: Type.String(),
  author: Type.String(),
  description: Type.String(),
  context_length: nullable(Type.Integer()),
  max_output_tokens: nullable(Type.Integer()),
  pricing: PricingSchema,
  capabilities: Type.Array(Type.String()),
  tags: Type.Array(Type.String()),
  input_modalities: Type.Array(Type.String()),
  output_modalities: Type.Array(Type.String()),
  created: nullable(Type.String()),
  knowledge_cutoff: nullable(Type.String()),
  links: Type.Array(Type.Object({ label: Type.String(), url: Type.String() })),
  aliases: Type.Array(Type.String()),
  routable: Type.Boolean(),
  endpoints: Type.Array(CatalogEndpointSchema),
  sources: Type.Record(Type.String(), Type.String(), {
    description:
      'where each field came from, keyed by the field names of this record ("config" when the config set it)',
  }),
});

export const CatalogPageSchema = Type.Object({
  data: Type.Array(CatalogModelSchema),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
});

const FilterValues = Type.Array(Type.Object({ value: Type.String(), count: Type.Integer() }));

export const CatalogFiltersSchema = Type.Object({
  authors: FilterValues,
  providers: FilterValues,
  input_modalities: FilterValues,
  output_modalities: FilterValues,
  capabilities: FilterValues,
  tags: FilterValues,
  sorts: Type.Array(Type.String()),
});

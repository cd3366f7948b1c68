import { Type, type TSchema } from '@sinclair/typebox';
import { PercentilesSchema } from '../providers/provider-schemas.js';

/** Response shapes of the rankings routes, for the OpenAPI document (see provider-schemas.ts). */
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Window = Type.Union(['1h', '24h', '7d', '30d'].map((value) => Type.Literal(value)));
const model = { model_id: Type.String(), name: Type.String(), author: Type.String() };

export const LeaderboardSchema = Type.Object({
  window: Window,
  from: Type.String(),
  to: Type.String(),
  data: Type.Array(
    Type.Object({
      rank: Type.Integer(),
      ...model,
      tokens: Type.Integer(),
      prompt_tokens: Type.Integer(),
      completion_tokens: Type.Integer(),
      requests: Type.Integer(),
      previous_tokens: Type.Integer(),
      change: nullable(Type.Number({ description: 'relative to the previous window; null when it had none' })),
    }),
  ),
});

export const ChartsSchema = Type.Object({
  metric: Type.Union(['tokens', 'requests', 'users'].map((value) => Type.Literal(value))),
  window: Window,
  bucket_seconds: Type.Integer(),
  series: Type.Array(
    Type.Object({
      model_id: Type.String({ description: 'or "others": the rest summed' }),
      name: Type.String(),
      author: nullable(Type.String()),
      total: Type.Integer(),
      points: Type.Array(Type.Object({ start: Type.String(), date: Type.String(), value: Type.Integer() })),
    }),
  ),
});

export const BenchmarksSchema = Type.Object({
  data: Type.Array(
    Type.Object({
      category: Type.String(),
      benchmarks: Type.Array(
        Type.Object({
          id: Type.String(),
          name: Type.String(),
          category: Type.String(),
          unit: Type.String(),
          description: Type.String(),
          scores: Type.Array(
            Type.Object({
              ...model,
              score: Type.Number(),
              source: Type.String({ description: 'where the score was published' }),
              date: Type.String(),
            }),
          ),
        }),
      ),
    }),
  ),
});

const SpeedEntry = Type.Object({
  ...model,
  tokens_per_second: nullable(Type.Number()),
  ttft_ms: PercentilesSchema,
  latency_ms: PercentilesSchema,
  requests: Type.Integer(),
});

export const SpeedSchema = Type.Object({
  window: Window,
  min_requests: Type.Integer(),
  by_throughput: Type.Array(SpeedEntry),
  by_latency: Type.Array(SpeedEntry),
});

export const AllRankingsSchema = Type.Object({
  window: Window,
  leaderboard: LeaderboardSchema,
  provider_share: Type.Object({
    window: Window,
    total_tokens: Type.Integer(),
    data: Type.Array(
      Type.Object({
        provider_id: Type.String(),
        tokens: Type.Integer(),
        requests: Type.Integer(),
        share: Type.Number(),
      }),
    ),
  }),
  benchmarks: BenchmarksSchema,
  speed: SpeedSchema,
  category_leaders: Type.Object({
    window: Window,
    data: Type.Array(
      Type.Object({
        category: Type.String(),
        leader: nullable(Type.Object({ ...model, tokens: Type.Integer() })),
      }),
    ),
  }),
});

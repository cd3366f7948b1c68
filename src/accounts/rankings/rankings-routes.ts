import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { sendCacheable } from '../../http/cacheable-response.js';
import { RANKING_WINDOWS, type RankingWindow } from '../../statistics/usage-stats-service.js';
import {
  CHART_METRICS,
  CHART_WINDOWS,
  type ChartMetric,
  type ChartWindow,
  type RankingsService,
} from '../../rankings/rankings-service.js';

const enumOf = (values: readonly string[], defaultValue?: string) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    defaultValue ? { default: defaultValue } : {},
  );
const windowParam = enumOf(Object.keys(RANKING_WINDOWS), 'week');
const limitParam = Type.Integer({ minimum: 1, maximum: 100 });

const LeaderboardQuery = Type.Object(
  { window: Type.Optional(windowParam), limit: Type.Optional(limitParam) },
  { additionalProperties: false },
);
const ChartsQuery = Type.Object(
  {
    metric: enumOf(CHART_METRICS),
    window: Type.Optional(enumOf(CHART_WINDOWS, 'week')),
    top: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
  },
  { additionalProperties: false },
);
const SpeedQuery = Type.Object(
  { window: Type.Optional(enumOf(Object.keys(RANKING_WINDOWS), 'day')), limit: Type.Optional(limitParam) },
  { additionalProperties: false },
);
const EmptyQuery = Type.Object({}, { additionalProperties: false });
const AllQuery = Type.Object({ window: Type.Optional(windowParam) }, { additionalProperties: false });

const MAX_AGE = 60;

/**
 * The four rankings answer at /rankings/… and at /api-account/rankings/… (CONTRACT §6): the app
 * registers them at its root and the account plugin under its prefix, with `all` (/all only there).
 */
export function registerRankingsRoutes(
  app: FastifyInstance,
  rankings: RankingsService,
  options: { all: boolean } = { all: false },
): void {
  const prefix = '/rankings';
  app.get(`${prefix}/models`, {
    schema: {
      summary: 'Model leaderboard by tokens, with change against the previous window',
      tags: ['rankings'],
      querystring: LeaderboardQuery,
    },
    handler: async (request, reply) => {
      const query = request.query as Static<typeof LeaderboardQuery>;
      return sendCacheable(
        request,
        reply,
        await rankings.leaderboard((query.window ?? 'week') as RankingWindow, query.limit ?? 50),
        MAX_AGE,
      );
    },
  });
  app.get(`${prefix}/charts`, {
    schema: {
      summary: 'Daily series per model (top N and others) of tokens, requests or users',
      tags: ['rankings'],
      querystring: ChartsQuery,
    },
    handler: async (request, reply) => {
      const query = request.query as Static<typeof ChartsQuery>;
      return sendCacheable(
        request,
        reply,
        await rankings.charts(query.metric as ChartMetric, (query.window ?? 'week') as ChartWindow, query.top ?? 10),
        MAX_AGE,
      );
    },
  });
  app.get(`${prefix}/benchmarks`, {
    schema: {
      summary: 'Benchmark scores by category, each with its source and date',
      tags: ['rankings'],
      querystring: EmptyQuery,
    },
    handler: async (request, reply) => sendCacheable(request, reply, rankings.benchmarksByCategory(), 3600),
  });
  app.get(`${prefix}/speed`, {
    schema: {
      summary: 'Fastest models by measured throughput and by time to first token',
      tags: ['rankings'],
      querystring: SpeedQuery,
    },
    handler: async (request, reply) => {
      const query = request.query as Static<typeof SpeedQuery>;
      return sendCacheable(
        request,
        reply,
        await rankings.speed((query.window ?? 'day') as RankingWindow, query.limit ?? 20),
        MAX_AGE,
      );
    },
  });

  if (!options.all) return;
  app.get('/rankings/all', {
    schema: { summary: 'All rankings in one response', tags: ['rankings'], querystring: AllQuery },
    handler: async (request, reply) => {
      const window = ((request.query as Static<typeof AllQuery>).window ?? 'week') as RankingWindow;
      const [leaderboard, providerShare, speed, categoryLeaders] = await Promise.all([
        rankings.leaderboard(window),
        rankings.providerShare(window),
        rankings.speed('day'),
        rankings.categoryLeaders(window),
      ]);
      return sendCacheable(
        request,
        reply,
        {
          window,
          leaderboard,
          provider_share: providerShare,
          benchmarks: rankings.benchmarksByCategory(),
          speed,
          category_leaders: categoryLeaders,
        },
        MAX_AGE,
      );
    },
  });
}

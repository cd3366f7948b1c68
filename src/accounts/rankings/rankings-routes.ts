import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { sendCacheable } from '../../http/cacheable-response.js';
import { WINDOW_NAMES, canonicalWindow } from '../../statistics/stats-windows.js';
import { CHART_METRICS, type ChartMetric, type RankingsService } from '../../rankings/rankings-service.js';
import {
  AllRankingsSchema,
  BenchmarksSchema,
  ChartsSchema,
  LeaderboardSchema,
  SpeedSchema,
} from './rankings-schemas.js';
import { typed } from '../../shared/typebox-type-provider.js';

const enumOf = (values: readonly string[], options: { default?: string; description?: string } = {}) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  );
/** The provider statistics' windows, and the rankings' own day/week/month as aliases of 24h/7d/30d. */
const windowParam = (defaultValue: string) =>
  enumOf(WINDOW_NAMES, {
    default: defaultValue,
    description: '1h, 24h, 7d or 30d; day, week and month are aliases of 24h, 7d and 30d',
  });
const limitParam = Type.Integer({ minimum: 1, maximum: 100 });

const LeaderboardQuery = Type.Object(
  { window: Type.Optional(windowParam('7d')), limit: Type.Optional(limitParam) },
  { additionalProperties: false },
);
const ChartsQuery = Type.Object(
  {
    metric: enumOf(CHART_METRICS),
    window: Type.Optional(windowParam('7d')),
    top: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
  },
  { additionalProperties: false },
);
const SpeedQuery = Type.Object(
  { window: Type.Optional(windowParam('24h')), limit: Type.Optional(limitParam) },
  { additionalProperties: false },
);
const EmptyQuery = Type.Object({}, { additionalProperties: false });
const AllQuery = Type.Object({ window: Type.Optional(windowParam('7d')) }, { additionalProperties: false });

const MAX_AGE = 60;
const errors = { 400: { $ref: 'ErrorEnvelope#' } };
const answers = (schema: unknown) => ({ 200: schema, ...errors });

/**
 * The four rankings answer at /rankings/… and at /api-account/rankings/… (CONTRACT §6): the app
 * registers them at its root and the account plugin under its prefix, with `all` (/all only there).
 * Every window parameter takes the provider statistics' names; answers name the canonical one.
 */
export function registerRankingsRoutes(
  app: FastifyInstance,
  rankings: RankingsService,
  options: { all: boolean } = { all: false },
): void {
  const prefix = '/rankings';
  typed(app).get(`${prefix}/models`, {
    schema: {
      summary: 'Model leaderboard by tokens, with change against the previous window',
      tags: ['rankings'],
      querystring: LeaderboardQuery,
      response: answers(LeaderboardSchema),
    },
    handler: async (request, reply) => {
      const query = request.query;
      return sendCacheable(
        request,
        reply,
        await rankings.leaderboard(canonicalWindow(query.window ?? '7d'), query.limit ?? 50),
        MAX_AGE,
      );
    },
  });
  typed(app).get(`${prefix}/charts`, {
    schema: {
      summary: 'A series per model (top N and others) of tokens, requests or users, per bucket of the window',
      tags: ['rankings'],
      querystring: ChartsQuery,
      response: answers(ChartsSchema),
    },
    handler: async (request, reply) => {
      const query = request.query;
      return sendCacheable(
        request,
        reply,
        await rankings.charts(query.metric as ChartMetric, canonicalWindow(query.window ?? '7d'), query.top ?? 10),
        MAX_AGE,
      );
    },
  });
  typed(app).get(`${prefix}/benchmarks`, {
    schema: {
      summary: 'Benchmark scores by category, each with its source and date',
      tags: ['rankings'],
      querystring: EmptyQuery,
      response: answers(BenchmarksSchema),
    },
    handler: async (request, reply) => sendCacheable(request, reply, rankings.benchmarksByCategory(), 3600),
  });
  typed(app).get(`${prefix}/speed`, {
    schema: {
      summary: 'Fastest models by measured throughput and by time to first token, over the window',
      tags: ['rankings'],
      querystring: SpeedQuery,
      response: answers(SpeedSchema),
    },
    handler: async (request, reply) => {
      const query = request.query;
      return sendCacheable(
        request,
        reply,
        await rankings.speed(canonicalWindow(query.window ?? '24h'), query.limit ?? 20),
        MAX_AGE,
      );
    },
  });

  if (!options.all) return;
  typed(app).get('/rankings/all', {
    schema: {
      summary: 'All rankings in one response, every part over the same window',
      tags: ['rankings'],
      querystring: AllQuery,
      response: answers(AllRankingsSchema),
    },
    handler: async (request, reply) => {
      const window = canonicalWindow(request.query.window ?? '7d');
      const [leaderboard, providerShare, speed, categoryLeaders] = await Promise.all([
        rankings.leaderboard(window),
        rankings.providerShare(window),
        rankings.speed(window),
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

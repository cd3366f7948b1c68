import type { ModelCatalog } from '../catalog/model-catalog.js';
import { VOLUME_COLUMNS, addTotals, describeTotals, emptyTotals } from '../statistics/rollup-queries.js';
import { GRANULARITY_MS } from '../statistics/rollup-schema.js';
import type { UsageStatsService } from '../statistics/usage-stats-service.js';
import { STATS_WINDOWS, type StatsWindow } from '../statistics/stats-windows.js';
import { InvalidRequestError } from '../shared/errors.js';
import type { Store } from '../store/database.js';
import type { BenchmarkData } from './benchmark-data.js';

export const CHART_METRICS = ['tokens', 'requests', 'users'] as const;
export type ChartMetric = (typeof CHART_METRICS)[number];
/** Distinct users are counted per UTC day only, so the users chart needs a window of whole days. */
const USERS_CHART_WINDOWS: readonly StatsWindow[] = ['7d', '30d'];

/** Categories whose leaders the rankings name: models with the capability, ranked by tokens. */
const CATEGORY_CAPABILITIES: Record<string, string> = {
  reasoning: 'reasoning',
  vision: 'vision',
  tool_use: 'tools',
  web_search: 'web_search',
};
/** Speed rankings ignore models with fewer answered requests than this: a handful of samples is noise. */
const SPEED_MIN_REQUESTS = 5;

const iso = (milliseconds: number) => new Date(milliseconds).toISOString();

/** Leaderboard, charts, benchmarks, speed, category leaders and provider share, all from rollups. */
export class RankingsService {
  constructor(
    private readonly store: Store,
    private readonly stats: UsageStatsService,
    private readonly catalog: ModelCatalog,
    private readonly benchmarks: BenchmarkData,
  ) {}

  private modelInfo(modelId: string) {
    const model = this.catalog.get(modelId);
    return { model_id: modelId, name: model?.name ?? modelId, author: model?.author ?? modelId.split('/')[0] };
  }

  async leaderboard(window: StatsWindow, limit = 50) {
    const { granularity, count } = STATS_WINDOWS[window];
    const [current, previous] = await Promise.all([
      this.stats.totals(granularity, count, ['model_id'], {}, 0, VOLUME_COLUMNS),
      this.stats.totals(granularity, count, ['model_id'], {}, count, VOLUME_COLUMNS),
    ]);
    const before = new Map(
      previous.map((row) => [row.modelId!, row.totals.sums.prompt_tokens + row.totals.sums.completion_tokens]),
    );
    const range = this.stats.range(granularity, count);
    const ranked = current
      .map((row) => ({
        modelId: row.modelId!,
        sums: row.totals.sums,
        tokens: row.totals.sums.prompt_tokens + row.totals.sums.completion_tokens,
      }))
      .sort((a, b) => b.tokens - a.tokens || a.modelId.localeCompare(b.modelId))
      .slice(0, limit);
    return {
      window,
      from: iso(range.from),
      to: iso(range.to),
      data: ranked.map((row, index) => {
        const previousTokens = before.get(row.modelId) ?? 0;
        return {
          rank: index + 1,
          ...this.modelInfo(row.modelId),
          tokens: row.tokens,
          prompt_tokens: row.sums.prompt_tokens,
          completion_tokens: row.sums.completion_tokens,
          requests: row.sums.requests,
          previous_tokens: previousTokens,
          /** Relative change against the previous window of the same length; null when there was none. */
          change: previousTokens === 0 ? null : Number(((row.tokens - previousTokens) / previousTokens).toFixed(4)),
        };
      }),
    };
  }

  /**
   * A series per model over the window's buckets (minutes for 1h, hours for 24h, days beyond): the
   * top N by the metric, the rest summed as "others".
   */
  async charts(metric: ChartMetric, window: StatsWindow, top = 10) {
    const { granularity, count } = STATS_WINDOWS[window];
    if (metric === 'users' && granularity !== 'day')
      throw new InvalidRequestError(
        `Invalid value for 'window': ${JSON.stringify(window)}. Distinct users are counted per day: with metric 'users' the supported values are: ${USERS_CHART_WINDOWS.map((name) => `'${name}'`).join(', ')} (or 'week', 'month').`,
        'window',
        'invalid_value',
      );
    const range = this.stats.range(granularity, count);
    const series = new Map<string, Map<number, number>>();
    const add = (modelId: string, day: number, value: number) => {
      const points = series.get(modelId) ?? new Map<number, number>();
      points.set(day, (points.get(day) ?? 0) + value);
      series.set(modelId, points);
    };
    if (metric === 'users') {
      for (const row of await this.stats.usersPerModelDay(count)) add(row.modelId, row.dayStart, row.users);
    } else {
      const rows = await this.stats.totals(granularity, count, ['bucket_start', 'model_id'], {}, 0, VOLUME_COLUMNS);
      for (const row of rows)
        add(
          row.modelId!,
          row.bucketStart!,
          metric === 'tokens'
            ? row.totals.sums.prompt_tokens + row.totals.sums.completion_tokens
            : row.totals.sums.requests,
        );
    }
    const totals = [...series].map(([modelId, points]) => ({
      modelId,
      points,
      total: [...points.values()].reduce((sum, value) => sum + value, 0),
    }));
    totals.sort((a, b) => b.total - a.total || a.modelId.localeCompare(b.modelId));
    const shown = totals.slice(0, top);
    const others = new Map<number, number>();
    for (const entry of totals.slice(top))
      for (const [day, value] of entry.points) others.set(day, (others.get(day) ?? 0) + value);
    const toPoints = (points: Map<number, number>) =>
      range.bucketStarts.map((start) => ({
        start: iso(start),
        date: iso(start).slice(0, 10),
        value: points.get(start) ?? 0,
      }));
    return {
      metric,
      window,
      bucket_seconds: GRANULARITY_MS[granularity] / 1000,
      series: [
        ...shown.map((entry) => ({
          ...this.modelInfo(entry.modelId),
          total: entry.total,
          points: toPoints(entry.points),
        })),
        ...(totals.length > top
          ? [
              {
                model_id: 'others',
                name: 'Others',
                author: null,
                total: totals.slice(top).reduce((sum, entry) => sum + entry.total, 0),
                points: toPoints(others),
              },
            ]
          : []),
      ],
    };
  }

  benchmarksByCategory() {
    const categories = [...new Set(this.benchmarks.benchmarks.map((benchmark) => benchmark.category))].sort();
    return {
      data: categories.map((category) => ({
        category,
        benchmarks: this.benchmarks.benchmarks
          .filter((benchmark) => benchmark.category === category)
          .map((benchmark) => ({
            ...benchmark,
            scores: this.benchmarks.scores
              .filter((score) => score.benchmark === benchmark.id)
              .sort((a, b) => b.score - a.score || a.model_id.localeCompare(b.model_id))
              .map((score) => ({
                ...this.modelInfo(score.model_id),
                score: score.score,
                source: score.source,
                date: score.date,
              })),
          })),
      })),
    };
  }

  async speed(window: StatsWindow = '24h', limit = 20) {
    const { granularity, count } = STATS_WINDOWS[window];
    const rows = await this.stats.totals(granularity, count, ['model_id']);
    // Like with like: output tokens per second of chat models. An embedding model writes no output
    // tokens, and any throughput it showed (input read at 20,000 tok/s) would lead the ranking unfairly.
    const chats = (modelId: string) => this.catalog.get(modelId)?.outputModalities.includes('text') ?? true;
    const measured = rows
      .filter((row) => row.totals.sums.successes >= SPEED_MIN_REQUESTS && chats(row.modelId!))
      .map((row) => ({ ...this.modelInfo(row.modelId!), ...describeTotals(row.totals) }));
    const entry = (row: (typeof measured)[number]) => ({
      model_id: row.model_id,
      name: row.name,
      author: row.author,
      tokens_per_second: row.tokens_per_second,
      ttft_ms: row.ttft_ms,
      latency_ms: row.latency_ms,
      requests: row.requests,
    });
    return {
      window,
      min_requests: SPEED_MIN_REQUESTS,
      by_throughput: measured
        .filter((row) => row.tokens_per_second !== null)
        .sort((a, b) => b.tokens_per_second! - a.tokens_per_second! || a.model_id.localeCompare(b.model_id))
        .slice(0, limit)
        .map(entry),
      by_latency: measured
        .filter((row) => row.ttft_ms.p50 !== null)
        .sort((a, b) => a.ttft_ms.p50! - b.ttft_ms.p50! || a.model_id.localeCompare(b.model_id))
        .slice(0, limit)
        .map(entry),
    };
  }

  async categoryLeaders(window: StatsWindow) {
    const { granularity, count } = STATS_WINDOWS[window];
    const rows = await this.stats.totals(granularity, count, ['model_id'], {}, 0, VOLUME_COLUMNS);
    const tokens = rows.map((row) => ({
      modelId: row.modelId!,
      tokens: row.totals.sums.prompt_tokens + row.totals.sums.completion_tokens,
    }));
    tokens.sort((a, b) => b.tokens - a.tokens || a.modelId.localeCompare(b.modelId));
    return {
      window,
      data: Object.entries(CATEGORY_CAPABILITIES).map(([category, capability]) => {
        const leader = tokens.find((row) => this.catalog.get(row.modelId)?.capabilities.includes(capability));
        return { category, leader: leader ? { ...this.modelInfo(leader.modelId), tokens: leader.tokens } : null };
      }),
    };
  }

  async providerShare(window: StatsWindow) {
    const { granularity, count } = STATS_WINDOWS[window];
    const rows = await this.stats.totals(granularity, count, ['provider_id'], {}, 0, VOLUME_COLUMNS);
    const all = rows.reduce((sum, row) => addTotals(sum, row.totals), emptyTotals());
    const total = all.sums.prompt_tokens + all.sums.completion_tokens;
    return {
      window,
      total_tokens: total,
      data: rows
        .map((row) => ({
          provider_id: row.providerId!,
          tokens: row.totals.sums.prompt_tokens + row.totals.sums.completion_tokens,
          requests: row.totals.sums.requests,
        }))
        .sort((a, b) => b.tokens - a.tokens || a.provider_id.localeCompare(b.provider_id))
        .map((row) => ({ ...row, share: total === 0 ? 0 : Number((row.tokens / total).toFixed(4)) })),
    };
  }
}

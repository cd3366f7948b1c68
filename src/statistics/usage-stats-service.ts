import type { Store } from '../store/database.js';
import type { Clock } from '../shared/clock.js';
import { TtlMemo } from './ttl-memo.js';
import {
  COUNTER_COLUMNS,
  VOLUME_COLUMNS,
  addTotals,
  describeTotals,
  emptyTotals,
  sumRollups,
  windowRange,
  type GroupColumn,
  type GroupedTotals,
  type WindowRange,
} from './rollup-queries.js';
import type { Granularity } from './rollup-schema.js';

import { STATS_WINDOWS, type StatsWindow } from './stats-windows.js';

const iso = (milliseconds: number) => new Date(milliseconds).toISOString();

/** Read side of the statistics: every answer is a sum over rollups, memoised for a few seconds. */
export class UsageStatsService {
  private readonly memo: TtlMemo;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    memoTtlMs = 5000,
  ) {
    this.memo = new TtlMemo(clock, memoTtlMs);
  }

  range(granularity: Granularity, count: number, bucketsBack = 0): WindowRange {
    return windowRange(this.clock.now(), granularity, count, bucketsBack);
  }

  /** Sums over a window, grouped; memoised by its arguments. `columns`: only these counters (VOLUME_COLUMNS for rankings by volume). */
  totals(
    granularity: Granularity,
    count: number,
    groupBy: GroupColumn[],
    filter: { providerId?: string; modelId?: string } = {},
    bucketsBack = 0,
    columns: readonly string[] = COUNTER_COLUMNS,
  ): Promise<GroupedTotals[]> {
    const range = this.range(granularity, count, bucketsBack);
    const key = JSON.stringify([granularity, range.from, range.to, groupBy, filter, columns]);
    return this.memo.get(key, () =>
      sumRollups(this.store, granularity, { from: range.from, to: range.to, ...filter }, groupBy, columns),
    );
  }

  /** Distinct users per model and UTC day over the last `days` days, from the per-day counts. */
  usersPerModelDay(days: number): Promise<{ dayStart: number; modelId: string; users: number }[]> {
    const range = this.range('day', days);
    return this.memo.get(JSON.stringify(['users', range.from, range.to]), async () => {
      const rows = await this.store.db
        .selectFrom('usage_model_users_day_count')
        .select(['day_start', 'model_id', 'users'])
        .where('day_start', '>=', range.from)
        .where('day_start', '<', range.to)
        .execute();
      return rows.map((row) => ({ dayStart: Number(row.day_start), modelId: row.model_id, users: Number(row.users) }));
    });
  }

  /** GET /providers/{id}/stats: totals, per-bucket series (zero-filled) and per-model totals. */
  async providerStats(providerId: string, window: StatsWindow) {
    const { granularity, count } = STATS_WINDOWS[window];
    const range = this.range(granularity, count);
    const [byBucket, byModel] = await Promise.all([
      this.totals(granularity, count, ['bucket_start'], { providerId }),
      this.totals(granularity, count, ['model_id'], { providerId }),
    ]);
    const buckets = new Map(byBucket.map((row) => [row.bucketStart, row.totals]));
    const overall = byBucket.reduce((sum, row) => addTotals(sum, row.totals), emptyTotals());
    return {
      provider: providerId,
      window,
      from: iso(range.from),
      to: iso(range.to),
      bucket_seconds: range.bucketMs / 1000,
      totals: describeTotals(overall),
      buckets: range.bucketStarts.map((start) => ({
        start: iso(start),
        ...describeTotals(buckets.get(start) ?? emptyTotals()),
      })),
      models: byModel
        .map((row) => ({ model_id: row.modelId!, ...describeTotals(row.totals) }))
        .sort((a, b) => b.total_tokens - a.total_tokens || a.model_id.localeCompare(b.model_id)),
    };
  }

  /** Tokens per model over the last 7 days: the catalog's popularity. */
  async popularity(): Promise<Map<string, number>> {
    const rows = await this.totals('day', 7, ['model_id'], {}, 0, VOLUME_COLUMNS);
    return new Map(
      rows.map((row) => [row.modelId!, row.totals.sums.prompt_tokens + row.totals.sums.completion_tokens]),
    );
  }
}

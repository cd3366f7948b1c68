import { describe, expect, it } from 'vitest';
import { RankingsService } from './rankings-service.js';
import { emptyTotals } from '../statistics/rollup-queries.js';
import type { ModelCatalog } from '../catalog/model-catalog.js';
import type { UsageStatsService } from '../statistics/usage-stats-service.js';
import type { Store } from '../store/database.js';
import type { BenchmarkData } from './benchmark-data.js';

/** Rollup totals of `requests` answers at a given throughput (tokens over generation time). */
function measured(modelId: string, tokensPerSecond: number) {
  const totals = emptyTotals();
  totals.sums.requests = 10;
  totals.sums.successes = 10;
  totals.sums.generation_ms_sum = 1000;
  totals.sums.generation_tokens = tokensPerSecond;
  totals.ttft[0] = 10;
  return { modelId, totals };
}

describe('speed ranking (issue 28)', () => {
  it('compares chat models by output tokens per second: an embedding model does not lead at 20,000 tok/s', async () => {
    const models: Record<string, { name: string; author: string; outputModalities: string[] }> = {
      'acme/embed': { name: 'Embed', author: 'acme', outputModalities: ['embeddings'] },
      'acme/chat': { name: 'Chat', author: 'acme', outputModalities: ['text'] },
      'acme/fast': { name: 'Fast', author: 'acme', outputModalities: ['text'] },
    };
    const catalog = { get: (id: string) => models[id] } as unknown as ModelCatalog;
    const stats = {
      totals: async () => [measured('acme/embed', 20_000), measured('acme/chat', 60), measured('acme/fast', 150)],
    } as unknown as UsageStatsService;
    const rankings = new RankingsService({} as Store, stats, catalog, {} as BenchmarkData);
    const speed = await rankings.speed('24h');
    expect(speed.by_throughput.map((row) => [row.model_id, row.tokens_per_second])).toEqual([
      ['acme/fast', 150],
      ['acme/chat', 60],
    ]);
    expect(speed.by_latency.map((row) => row.model_id)).not.toContain('acme/embed');
  });
});

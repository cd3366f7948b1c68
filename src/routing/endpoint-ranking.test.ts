import { describe, expect, it } from 'vitest';
import { routingDirectory } from '../../test/helpers/routing-fixtures.js';
import { rankEndpoints } from './endpoint-ranking.js';
import { parseRequestRouting } from './provider-preferences.js';
import { EndpointStats } from './endpoint-stats.js';
import type { RouteCandidate } from './model-directory.js';

const directory = routingDirectory();
const endpointsOf = (modelId: string) => directory.candidatesFor(directory.get(modelId)!);
const providers = (ranked: RouteCandidate[]) => ranked.map((candidate) => candidate.provider.id);

function rank(provider: unknown, options: { modelId?: string; stats?: EndpointStats; random?: () => number } = {}) {
  return providers(
    rankEndpoints({
      candidates: endpointsOf(options.modelId ?? 'chat/a'),
      preferences: parseRequestRouting({ provider }).preferences,
      figures: (key) => (options.stats ?? new EndpointStats()).figures(key),
      random: options.random ?? (() => 0.5),
    }),
  );
}

describe('rankEndpoints', () => {
  it('default: same priority and weight → cheapest first', () => {
    expect(rank(undefined)).toEqual(['p1', 'p3', 'p2']);
  });

  it('default: lower priority wins over price', () => {
    const candidates = endpointsOf('chat/a').map((candidate) => ({
      ...candidate,
      endpoint: { ...candidate.endpoint, priority: candidate.provider.id === 'p2' ? 0 : 1 },
    }));
    const ranked = rankEndpoints({
      candidates,
      preferences: parseRequestRouting({}).preferences,
      figures: () => ({ latencyMs: null, throughputTokensPerSecond: null }),
      random: () => 0.5,
    });
    expect(providers(ranked)).toEqual(['p2', 'p1', 'p3']);
  });

  it('default: different weights share the first place in proportion to weight', () => {
    const candidates = endpointsOf('chat/a')
      .slice(0, 2)
      .map((candidate) => ({
        ...candidate,
        endpoint: { ...candidate.endpoint, weight: candidate.provider.id === 'p1' ? 3 : 1 },
      }));
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let firstP1 = 0;
    for (let index = 0; index < 4000; index++) {
      const ranked = rankEndpoints({
        candidates,
        preferences: parseRequestRouting({}).preferences,
        figures: () => ({ latencyMs: null, throughputTokensPerSecond: null }),
        random,
      });
      expect(ranked).toHaveLength(2);
      if (ranked[0].provider.id === 'p1') firstP1++;
    }
    // Weight 3 against 1: about 75 % first.
    expect(firstP1 / 4000).toBeGreaterThan(0.7);
    expect(firstP1 / 4000).toBeLessThan(0.8);
  });

  it('only, ignore and max_price remove endpoints', () => {
    expect(rank({ only: ['p2', 'p3'] })).toEqual(['p3', 'p2']);
    expect(rank({ ignore: ['p1'] })).toEqual(['p3', 'p2']);
    expect(rank({ max_price: { prompt: 2 } })).toEqual(['p1', 'p3']);
    expect(rank({ max_price: { completion: 2 } })).toEqual(['p1']);
  });

  it('order puts named providers first; allow_fallbacks false keeps only them', () => {
    expect(rank({ order: ['p2'] })).toEqual(['p2', 'p1', 'p3']);
    expect(rank({ order: ['p2', 'p3'], allow_fallbacks: false })).toEqual(['p2', 'p3']);
    expect(rank({ order: ['nobody'], allow_fallbacks: false })).toEqual([]);
  });

  it('allow_fallbacks false without order keeps the first choice only', () => {
    expect(rank({ allow_fallbacks: false })).toEqual(['p1']);
  });

  it('sort by price, measured latency and measured throughput (unmeasured last)', () => {
    const stats = new EndpointStats();
    stats.record('p2:a-2', { latencyMs: 100, throughputTokensPerSecond: 30 });
    stats.record('p3:a-3', { latencyMs: 400, throughputTokensPerSecond: 90 });
    expect(rank({ sort: 'price' }, { stats })).toEqual(['p1', 'p3', 'p2']);
    expect(rank({ sort: 'latency' }, { stats })).toEqual(['p2', 'p3', 'p1']);
    expect(rank({ sort: 'throughput' }, { stats })).toEqual(['p3', 'p2', 'p1']);
  });

  it('measured figures are moving averages fed by completion outcomes', () => {
    const stats = new EndpointStats();
    const outcome = {
      status: 200,
      clientAborted: false,
      providerId: 'p1',
      upstreamModel: 'a-1',
      streamed: true,
      latencyMs: 1100,
      timeToFirstTokenMs: 100,
      usage: { prompt_tokens: 1, completion_tokens: 50, total_tokens: 51 },
    };
    stats.onCompletion(outcome as never);
    expect(stats.figures('p1:a-1')).toEqual({ latencyMs: 100, throughputTokensPerSecond: 50 });
    stats.onCompletion({ ...outcome, timeToFirstTokenMs: 600, latencyMs: 1600 } as never);
    expect(stats.figures('p1:a-1').latencyMs).toBe(200);
    stats.onCompletion({ ...outcome, status: 502, timeToFirstTokenMs: 9000 } as never);
    expect(stats.figures('p1:a-1').latencyMs).toBe(200);
  });
});

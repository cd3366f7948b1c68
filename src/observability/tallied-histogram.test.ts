import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { TalliedHistogram } from './tallied-histogram.js';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** The same observations into prom-client's Histogram and into a TalliedHistogram, each in a registry of its own. */
function pair(labelNames: string[]) {
  const promRegistry = new Registry();
  const talliedRegistry = new Registry();
  const options = { name: 'wait_seconds', help: 'Waits.', labelNames, buckets: BUCKETS };
  const prom = new Histogram({ ...options, registers: [promRegistry] });
  const tallied = new TalliedHistogram({ ...options, registers: [talliedRegistry] });
  return {
    promRegistry,
    talliedRegistry,
    observe(value: number, ...values: string[]) {
      prom.observe(Object.fromEntries(labelNames.map((name, index) => [name, values[index]!])), value);
      tallied.observe(value, ...values);
    },
    tallied,
    prom,
  };
}

/** A scrape's lines in a fixed order (label sets may come in another order; their samples may not differ). */
const lines = async (registry: Registry) => (await registry.metrics()).split('\n').sort();

describe('TalliedHistogram', () => {
  it('scrapes as prom-client’s Histogram does for the same observations', async () => {
    const { promRegistry, talliedRegistry, observe } = pair(['route', 'method']);
    // On a bound, between bounds, below the first, above the last, zero; label sets interleaved.
    for (const [value, route, method] of [
      [0.005, '/v1/chat/completions', 'POST'],
      [0.0071, '/v1/chat/completions', 'POST'],
      [0.3, '/metrics', 'GET'],
      [0.0001, '/v1/chat/completions', 'POST'],
      [301, '/v1/chat/completions', 'GET'],
      [0, 'none', 'GET'],
      [42.5, '/metrics', 'GET'],
    ] as const)
      observe(value, route, method);
    const expected = await lines(promRegistry);
    expect(expected.some((line) => line.includes('le="+Inf"'))).toBe(true);
    expect(await lines(talliedRegistry)).toEqual(expected);
    // And a second scrape shows the same (nothing is handed over and cleared on a read).
    expect(await lines(talliedRegistry)).toEqual(expected);
  });

  it('reads as prom-client’s Histogram through getMetricsAsJSON, get() and reset', async () => {
    const { promRegistry, talliedRegistry, observe, tallied, prom } = pair(['provider']);
    observe(0.02, 'mock');
    observe(7, 'mock');
    observe(0.02, 'other');
    expect(await talliedRegistry.getMetricsAsJSON()).toEqual(await promRegistry.getMetricsAsJSON());
    expect(await talliedRegistry.getSingleMetric('wait_seconds')!.get()).toEqual(await prom.get());
    expect((talliedRegistry.getSingleMetric('wait_seconds') as unknown as { labelNames: string[] }).labelNames).toEqual(
      ['provider'],
    );
    talliedRegistry.resetMetrics();
    promRegistry.resetMetrics();
    expect(tallied.get().values).toEqual([]);
    expect(await lines(talliedRegistry)).toEqual(await lines(promRegistry));
  });

  it('refuses a value that is not a finite number, as prom-client does', () => {
    const { tallied } = pair(['provider']);
    expect(() => tallied.observe(Number.NaN, 'mock')).toThrow(TypeError);
    expect(() => tallied.observe(Number.POSITIVE_INFINITY, 'mock')).toThrow(TypeError);
    expect(tallied.get().values).toEqual([]);
  });
});

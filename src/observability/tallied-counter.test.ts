import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { TalliedCounter } from './tallied-counter.js';

describe('TalliedCounter', () => {
  it('shows every increment on each read, once, by label set', async () => {
    const registry = new Registry();
    const counter = new TalliedCounter({
      name: 'things_total',
      help: 'Things.',
      labelNames: ['route', 'status'],
      registers: [registry],
    });
    counter.inc('/a', '200');
    counter.inc('/a', '200');
    counter.inc('/b', '500');
    const value = async (route: string, status: string) =>
      (await registry.getSingleMetric('things_total')!.get()).values.find(
        (sample) => sample.labels.route === route && sample.labels.status === status,
      )?.value;
    expect(await value('/a', '200')).toBe(2);
    expect(await value('/b', '500')).toBe(1);
    // A second read adds nothing; later increments add to what was read.
    expect(await value('/a', '200')).toBe(2);
    counter.inc('/a', '200');
    expect(await registry.metrics()).toContain('things_total{route="/a",status="200"} 3');
  });

  it('adds amounts by label set, and nothing for an amount that is not above 0', async () => {
    const registry = new Registry();
    const counter = new TalliedCounter({
      name: 'tokens_total',
      help: 'Tokens.',
      labelNames: ['model', 'type'],
      registers: [registry],
    });
    counter.add(120, 'm', 'prompt');
    counter.add(7, 'm', 'completion');
    counter.add(30, 'm', 'prompt');
    counter.add(0, 'm', 'cached');
    counter.add(-5, 'm', 'prompt');
    counter.add(Number.NaN, 'm', 'prompt');
    const text = await registry.metrics();
    expect(text).toContain('tokens_total{model="m",type="prompt"} 150');
    expect(text).toContain('tokens_total{model="m",type="completion"} 7');
    expect(text).not.toContain('type="cached"');
    counter.add(2_500_000_000_000, 'm', 'completion');
    expect(await registry.metrics()).toContain('tokens_total{model="m",type="completion"} 2500000000007');
  });

  it('keeps label sets apart whatever characters their values hold', async () => {
    const registry = new Registry();
    const counter = new TalliedCounter({
      name: 'pairs_total',
      help: 'Pairs.',
      labelNames: ['first', 'second'],
      registers: [registry],
    });
    // Joined into one key with a NUL between values, these two were one tally.
    counter.inc('a\u0000b', 'c');
    counter.inc('a', 'b\u0000c');
    const values = (await registry.getSingleMetric('pairs_total')!.get()).values;
    expect(values.map((sample) => [sample.labels.first, sample.labels.second, sample.value])).toEqual([
      ['a\u0000b', 'c', 1],
      ['a', 'b\u0000c', 1],
    ]);
  });
});

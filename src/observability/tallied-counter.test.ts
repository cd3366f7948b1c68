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
});

import { describe, expect, it } from 'vitest';
import { medianOfRounds, type SaturationResult } from './saturation-load.js';

const round = (requestsPerSecond: number, cpuMicrosPerRequest: number | null): SaturationResult => ({
  connections: 32,
  durationSeconds: 4,
  requestsPerSecond,
  successes: requestsPerSecond * 4,
  failures: 1,
  cpuMicrosPerRequest,
});

describe('medianOfRounds', () => {
  it('takes the median of throughput and of CPU per request, so one slow round moves neither', () => {
    const merged = medianOfRounds([round(2000, 400), round(900, 900), round(2100, 380)]);
    expect(merged.requestsPerSecond).toBe(2000);
    expect(merged.cpuMicrosPerRequest).toBe(400);
    expect(merged).toMatchObject({ durationSeconds: 12, successes: 20_000, failures: 3 });
    expect(merged.rounds).toHaveLength(3);
  });

  it('averages the middle two of an even count and leaves a single round as it is', () => {
    expect(medianOfRounds([round(100, 10), round(300, 30)]).requestsPerSecond).toBe(200);
    const only = round(100, 10);
    expect(medianOfRounds([only])).toBe(only);
  });

  it('has no CPU figure when a round could not read it', () => {
    expect(medianOfRounds([round(100, 10), round(100, null), round(100, 12)]).cpuMicrosPerRequest).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { isSparse } from './sparse-series';

describe('isSparse (issue 28: one day of data drawn as a ramp)', () => {
  const days = (values: (number | null)[]) => values.map((requests, day) => ({ day, requests }));

  it('calls one day of traffic in thirty sparse, and a steady series dense', () => {
    expect(isSparse(days([...Array(29).fill(0), 4]), ['requests'])).toBe(true);
    expect(isSparse(days([null, null, 3, null]), ['requests'])).toBe(true);
    expect(isSparse(days(Array.from({ length: 30 }, (_, day) => day + 1)), ['requests'])).toBe(false);
    expect(isSparse(days([1, 2, 3, 0, 0, 0, 0, 0]), ['requests'])).toBe(false);
  });
});

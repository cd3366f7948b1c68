import { describe, expect, it } from 'vitest';
import { decimalToUnits, unitsToDecimal } from './decimal.js';

describe('decimalToUnits', () => {
  it.each([
    [0.15, 6, 150_000],
    [0.1 + 0.2 > 0.3 ? '0.3' : '0.3', 6, 300_000],
    [2.5, 6, 2_500_000],
    ['10', 2, 1000],
    [1e-6, 6, 1],
    [0.0375, 6, 37_500],
    [-1.25, 2, -125],
    ['0.1200000', 2, 12],
  ])('%s at scale %i is %i', (value, scale, expected) => {
    expect(decimalToUnits(value, scale)).toBe(expected);
  });

  it.each([['abc'], ['1.2.3'], [''], ['0.0000001']])('rejects %s', (value) => {
    expect(() => decimalToUnits(value, 6)).toThrow(RangeError);
  });
});

describe('unitsToDecimal', () => {
  it.each([
    [500_000, 12, '0.0000005'],
    [1_500_000, 12, '0.0000015'],
    [0, 6, '0'],
    [1_234_500, 6, '1.2345'],
    [-5, 2, '-0.05'],
    [10n ** 20n, 6, '100000000000000'],
  ])('%s at scale %i is %s', (units, scale, expected) => {
    expect(unitsToDecimal(units, scale)).toBe(expected);
  });
});

import { describe, expect, it } from 'vitest';
import { parseCreditAmount } from './checkout-amount';

describe('parseCreditAmount', () => {
  it('accepts amounts with up to two decimals within the limits', () => {
    expect(parseCreditAmount('25')).toEqual({ amount: 25, problem: null });
    expect(parseCreditAmount(' $1,250.50 ')).toEqual({ amount: 1250.5, problem: null });
  });
  it('explains what is wrong otherwise', () => {
    expect(parseCreditAmount('abc').problem).toBe('Enter an amount such as 25 or 12.50.');
    expect(parseCreditAmount('1.234').problem).toBe('Enter an amount such as 25 or 12.50.');
    expect(parseCreditAmount('2').problem).toBe('The smallest purchase is 5.');
    expect(parseCreditAmount('20000').problem).toBe('The largest purchase is 10,000.');
  });
});

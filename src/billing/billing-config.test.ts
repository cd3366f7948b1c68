import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/config-error.js';
import { choosePaymentProvider, feeFor, parseBillingConfig } from './billing-config.js';

describe('parseBillingConfig', () => {
  it('has defaults a fresh install can use', () => {
    const config = parseBillingConfig(undefined);
    expect(config.feeRatePpm).toBe(0);
    expect(config.minAmountMinor).toBe(500);
    expect(config.maxAmountMinor).toBe(1_000_000);
    expect([...config.currencies.keys()]).toEqual(['usd']);
    expect(config.currencies.get('usd')!.creditNanosPerMinor).toBe(10_000_000);
    expect(config.documentLinkTtlMs).toBe(3_600_000);
  });

  it('reads fee rates and currency values exactly', () => {
    const config = parseBillingConfig({ platform_fee_rate: 0.055, currencies: { usd: 1, eur: '1.08', jpy: '0.0067' } });
    expect(config.feeRatePpm).toBe(55_000);
    expect(config.currencies.get('eur')!.creditNanosPerMinor).toBe(10_800_000);
    expect(config.currencies.get('jpy')!.creditNanosPerMinor).toBe(6_700_000);
  });

  it.each([
    [{ platform_fee_rate: 2 }, 'billing.platform_fee_rate'],
    [{ platform_fee_rate: 'lots' }, 'billing.platform_fee_rate'],
    [{ min_amount: 50, max_amount: 10 }, 'billing.min_amount'],
    [{ currencies: { US: 1 } }, 'billing.currencies'],
    [{ seller: { name: '' } }, 'billing.seller.name'],
    [{ document_link_ttl_seconds: 5 }, 'billing.document_link_ttl_seconds'],
  ])('rejects %j naming %s', (section, field) => {
    expect(() => parseBillingConfig(section as Record<string, unknown>)).toThrow(ConfigError);
    expect(() => parseBillingConfig(section as Record<string, unknown>)).toThrow(field);
  });
});

describe('feeFor', () => {
  it('rounds half up to the cent, in integers', () => {
    expect(feeFor(1000, 50_000)).toBe(50);
    expect(feeFor(1, 500_000)).toBe(1);
    expect(feeFor(1, 499_999)).toBe(0);
    expect(feeFor(999_999, 55_000)).toBe(55_000);
    expect(feeFor(2000, 0)).toBe(0);
  });
});

describe('choosePaymentProvider', () => {
  const choose = (section: Record<string, unknown>, stripeConfigured: boolean, production: boolean) =>
    choosePaymentProvider(parseBillingConfig(section), section, { stripeConfigured, production });

  it.each([
    [{}, false, false, 'none'],
    [{}, true, true, 'stripe'],
    [{ payment_provider: 'sandbox' }, false, false, 'sandbox'],
    [{ payment_provider: 'sandbox' }, true, false, 'sandbox'],
    [{ payment_provider: 'sandbox', allow_sandbox_in_production: true }, false, true, 'sandbox'],
    [{ payment_provider: 'none' }, true, false, 'none'],
    [{ payment_provider: 'stripe' }, true, true, 'stripe'],
  ])('%o, stripe key %s, production %s → %s', (section, stripeConfigured, production, expected) => {
    expect(choose(section, stripeConfigured, production)).toBe(expected);
  });

  it('refuses the sandbox in production and stripe without its key', () => {
    expect(() => choose({ payment_provider: 'sandbox' }, false, true)).toThrow(ConfigError);
    expect(() => choose({ payment_provider: 'stripe' }, false, false)).toThrow(/STRIPE_SECRET_KEY/);
    expect(() => choose({ payment_provider: 'paypal' }, false, false)).toThrow(/payment_provider/);
  });
});

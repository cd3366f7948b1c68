import { sectionError, settleConfigSection, type Settled } from '../config/config-section.js';
import { BillingSectionSchema } from '../config/section-schemas.js';
import { decimalToUnits } from '../shared/decimal.js';

/** The `billing:` section: its schema (types, ranges, defaults) is config/section-schemas.ts. */
type BillingSection = Settled<typeof BillingSectionSchema>;

export interface Seller {
  name: string;
  address: string[];
  email: string;
  taxId: string;
}

export interface BillingConfig {
  plan: string;
  /** Fee rate in parts per million (0.05 → 50,000), so fees are integer arithmetic. */
  feeRatePpm: number;
  /** Order amount bounds in minor units (cents). */
  minAmountMinor: number;
  maxAmountMinor: number;
  /** Currency code → nano-USD of credit per minor unit of that currency. */
  currencies: Map<string, { creditNanosPerMinor: number }>;
  seller: Seller;
  documentLinkTtlMs: number;
  /** As written in the config; `choosePaymentProvider` settles it against the environment. */
  paymentProvider: 'stripe' | 'sandbox' | 'none' | undefined;
  allowSandboxInProduction: boolean;
}

/** Minor units (cents) per unit for the currencies we accept; ISO 4217 exponent 2 unless listed. */
const ZERO_DECIMAL = new Set([
  'jpy',
  'krw',
  'vnd',
  'clp',
  'isk',
  'ugx',
  'xof',
  'xaf',
  'pyg',
  'rwf',
  'kmf',
  'gnf',
  'bif',
  'djf',
  'mga',
  'vuv',
  'xpf',
]);
export function currencyExponent(currency: string): number {
  return ZERO_DECIMAL.has(currency) ? 0 : 2;
}

export function parseBillingConfig(section: Record<string, unknown> | undefined): BillingConfig {
  const input: BillingSection = settleConfigSection('billing', section, BillingSectionSchema);
  const fail = (name: string, problem: string) => sectionError(section, `billing.${name}`, problem);
  const field = <T>(name: string, read: () => T): T => {
    try {
      return read();
    } catch (error) {
      throw fail(name, `is not usable: ${(error as Error).message}`);
    }
  };
  const feeRatePpm = field('platform_fee_rate', () => decimalToUnits(input.platform_fee_rate, 6));
  if (feeRatePpm < 0 || feeRatePpm > 1_000_000) throw fail('platform_fee_rate', 'must be between 0 and 1');
  const minAmountMinor = field('min_amount', () => decimalToUnits(input.min_amount, 2));
  const maxAmountMinor = field('max_amount', () => decimalToUnits(input.max_amount, 2));
  if (minAmountMinor <= 0) throw fail('min_amount', 'must be above 0');
  if (maxAmountMinor < minAmountMinor) throw fail('min_amount', 'must not be above billing.max_amount');
  const currencies = new Map<string, { creditNanosPerMinor: number }>();
  for (const [code, usdPerUnit] of Object.entries(input.currencies)) {
    const name = `currencies.${code}`;
    if (!/^[a-z]{3}$/.test(code)) throw fail(name, 'is not a currency: use an ISO 4217 code in lower case, like usd');
    const nanosPerUnit = field(name, () => decimalToUnits(usdPerUnit, 9));
    if (nanosPerUnit <= 0) throw fail(name, 'must be above 0');
    const perMinor = nanosPerUnit / 10 ** currencyExponent(code);
    if (!Number.isInteger(perMinor)) throw fail(name, `must have at most ${9 - currencyExponent(code)} decimal places`);
    currencies.set(code, { creditNanosPerMinor: perMinor });
  }
  const seller = input.seller;
  return {
    plan: input.plan,
    feeRatePpm,
    minAmountMinor,
    maxAmountMinor,
    currencies,
    seller: {
      name: seller.name,
      address: seller.address,
      email: seller.email,
      taxId: seller.tax_id,
    },
    documentLinkTtlMs: input.document_link_ttl_seconds * 1000,
    paymentProvider: input.payment_provider,
    allowSandboxInProduction: input.allow_sandbox_in_production,
  };
}

export type PaymentProviderChoice = 'stripe' | 'sandbox' | 'none';

/**
 * Which payment provider runs (CONTRACT §5). The sandbox lets anyone credit their own account, so
 * it runs only when the config names it, and never under NODE_ENV=production unless
 * `billing.allow_sandbox_in_production` says so. Naming Stripe without its key is a config error
 * rather than a silent fallback.
 */
export function choosePaymentProvider(
  config: BillingConfig,
  section: Record<string, unknown> | undefined,
  environment: { stripeConfigured: boolean; production: boolean },
): PaymentProviderChoice {
  const chosen = config.paymentProvider ?? (environment.stripeConfigured ? 'stripe' : 'none');
  if (chosen === 'stripe' && !environment.stripeConfigured)
    throw sectionError(section, 'billing.payment_provider', 'is stripe, but STRIPE_SECRET_KEY is not set');
  if (chosen === 'sandbox' && environment.production && !config.allowSandboxInProduction)
    throw sectionError(
      section,
      'billing.payment_provider',
      'is sandbox, which lets every user credit their own account for free: it is refused under ' +
        'NODE_ENV=production unless billing.allow_sandbox_in_production is true',
    );
  return chosen;
}

/** fee = amount × rate, rounded half up to the minor unit (the one place billing rounds). */
export function feeFor(amountMinor: number, feeRatePpm: number): number {
  return Number((BigInt(amountMinor) * BigInt(feeRatePpm) + 500_000n) / 1_000_000n);
}

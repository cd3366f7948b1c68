import { Type, type Static } from '@sinclair/typebox';
import { parseConfigSection, sectionError } from '../config/config-section.js';
import { decimalToUnits } from '../shared/decimal.js';

/** The `billing:` section of gateway.config.yaml. Amounts are decimal strings or numbers in the currency. */
const SellerSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    address: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 8 })),
    email: Type.Optional(Type.String({ maxLength: 200 })),
    tax_id: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);

export const BillingSectionSchema = Type.Object(
  {
    plan: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    /** Charged on top of each purchase: an order for `amount` credits costs amount × (1 + fee_rate). */
    platform_fee_rate: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.String()])),
    min_amount: Type.Optional(Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.String()])),
    max_amount: Type.Optional(Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.String()])),
    /** Accepted currencies (ISO 4217, lower case) and what one unit is worth in USD credits. */
    currencies: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.String()])),
    ),
    seller: Type.Optional(SellerSchema),
    document_link_ttl_seconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 7 * 24 * 3600 })),
    /** Also read by metering: refuse requests when the balance cannot cover them. */
    require_credits: Type.Optional(Type.Boolean()),
    /**
     * Who takes payments. Unset: Stripe when STRIPE_SECRET_KEY is set, else none (create-checkout
     * answers 503). `sandbox` (development and demos: no money moves) must be asked for by name.
     */
    payment_provider: Type.Optional(
      Type.Union([Type.Literal('stripe'), Type.Literal('sandbox'), Type.Literal('none')]),
    ),
    /** The sandbox is refused under NODE_ENV=production unless this is true (a public demo). */
    allow_sandbox_in_production: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);
export type BillingSection = Static<typeof BillingSectionSchema>;

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
  const input: BillingSection = parseConfigSection('billing', section, BillingSectionSchema);
  const fail = (name: string, problem: string) => sectionError(section, `billing.${name}`, problem);
  const field = <T>(name: string, read: () => T): T => {
    try {
      return read();
    } catch (error) {
      throw fail(name, `is not usable: ${(error as Error).message}`);
    }
  };
  const feeRatePpm = field('platform_fee_rate', () => decimalToUnits(input.platform_fee_rate ?? '0', 6));
  if (feeRatePpm < 0 || feeRatePpm > 1_000_000) throw fail('platform_fee_rate', 'must be between 0 and 1');
  const minAmountMinor = field('min_amount', () => decimalToUnits(input.min_amount ?? '5', 2));
  const maxAmountMinor = field('max_amount', () => decimalToUnits(input.max_amount ?? '10000', 2));
  if (minAmountMinor <= 0) throw fail('min_amount', 'must be above 0');
  if (maxAmountMinor < minAmountMinor) throw fail('min_amount', 'must not be above billing.max_amount');
  const currencies = new Map<string, { creditNanosPerMinor: number }>();
  for (const [code, usdPerUnit] of Object.entries(input.currencies ?? { usd: '1' })) {
    const name = `currencies.${code}`;
    if (!/^[a-z]{3}$/.test(code)) throw fail(name, 'is not a currency: use an ISO 4217 code in lower case, like usd');
    const nanosPerUnit = field(name, () => decimalToUnits(usdPerUnit, 9));
    if (nanosPerUnit <= 0) throw fail(name, 'must be above 0');
    const perMinor = nanosPerUnit / 10 ** currencyExponent(code);
    if (!Number.isInteger(perMinor)) throw fail(name, `must have at most ${9 - currencyExponent(code)} decimal places`);
    currencies.set(code, { creditNanosPerMinor: perMinor });
  }
  const seller = input.seller ?? {};
  return {
    plan: input.plan ?? 'pay-as-you-go',
    feeRatePpm,
    minAmountMinor,
    maxAmountMinor,
    currencies,
    seller: {
      name: seller.name ?? 'LLM Gateway',
      address: seller.address ?? [],
      email: seller.email ?? '',
      taxId: seller.tax_id ?? '',
    },
    documentLinkTtlMs: (input.document_link_ttl_seconds ?? 3600) * 1000,
    paymentProvider: input.payment_provider,
    allowSandboxInProduction: input.allow_sandbox_in_production ?? false,
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

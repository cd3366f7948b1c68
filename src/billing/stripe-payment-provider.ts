import { createRequire } from 'node:module';
import type Stripe from 'stripe';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { Clock } from '../shared/clock.js';
import type {
  CheckoutRequest,
  CheckoutSession,
  PaymentMethod,
  PaymentProvider,
  SessionState,
} from './payment-provider.js';
import './billing-tables.js';

export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** Tests point the SDK at a local fake of the Stripe API. */
  host?: string;
  port?: number;
  protocol?: 'http' | 'https';
}

/**
 * The Stripe SDK is loaded on first use, not at start: a gateway that takes no card payments
 * (sandbox, or no payments at all) never loads it (memory, start-up time).
 */
export function createStripeClient(settings: StripeSettings): Stripe {
  const StripeSdk = createRequire(import.meta.url)('stripe') as typeof Stripe;
  return new StripeSdk(settings.secretKey, {
    host: settings.host,
    port: settings.port,
    protocol: settings.protocol,
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
  });
}

/** Stripe from the environment (CONTRACT §5), or undefined to use the sandbox. */
export function stripeSettingsFromEnvironment(env: Record<string, string | undefined>): StripeSettings | undefined {
  if (!env.STRIPE_SECRET_KEY) return undefined;
  const api = env.STRIPE_API_BASE ? new URL(env.STRIPE_API_BASE) : undefined;
  return {
    secretKey: env.STRIPE_SECRET_KEY,
    webhookSecret: env.STRIPE_WEBHOOK_SECRET ?? '',
    host: api?.hostname,
    port: api ? Number(api.port || (api.protocol === 'http:' ? 80 : 443)) : undefined,
    protocol: api ? (api.protocol.replace(':', '') as 'http' | 'https') : undefined,
  };
}

/** Checkout Sessions in payment mode, one Stripe customer per user (so saved cards can be listed). */
export class StripePaymentProvider implements PaymentProvider {
  readonly name = 'stripe';

  constructor(
    readonly stripe: Stripe,
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async createCheckout(request: CheckoutRequest): Promise<CheckoutSession> {
    const customer = await this.customerFor(request.userId, request.email);
    const session = await this.stripe.checkout.sessions.create(
      {
        mode: 'payment',
        customer,
        client_reference_id: request.orderId,
        metadata: { order_id: request.orderId, user_id: request.userId },
        payment_intent_data: { metadata: { order_id: request.orderId } },
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: request.currency,
              unit_amount: request.totalMinor,
              product_data: { name: request.description },
            },
          },
        ],
        success_url: request.successUrl,
        cancel_url: request.cancelUrl,
      },
      // A retried create (network blip, our own retry) must not open a second session for one order.
      { idempotencyKey: `checkout-${request.orderId}` },
    );
    if (!session.url) throw new Error(`Stripe returned checkout session ${session.id} without a url`);
    return { sessionId: session.id, checkoutUrl: session.url };
  }

  async sessionState(sessionId: string): Promise<SessionState> {
    return stateOfSession(await this.stripe.checkout.sessions.retrieve(sessionId));
  }

  /**
   * Refunds the order's payment intent in full. Stripe's charge.refunded event arrives later and
   * finds the order already refunded (a no-op). Keyed by order, so a retried call refunds once.
   */
  async refundPayment(orderId: string, paymentReference: string | null): Promise<void> {
    if (!paymentReference) throw new Error(`order ${orderId} has no Stripe payment to refund`);
    await this.stripe.refunds.create({ payment_intent: paymentReference }, { idempotencyKey: `refund-${orderId}` });
  }

  /** Stripe expires an open session on request; one that is no longer open is read back instead. */
  async cancelCheckout(sessionId: string): Promise<SessionState> {
    try {
      return stateOfSession(await this.stripe.checkout.sessions.expire(sessionId));
    } catch (error) {
      // Only an open session can be expired: anything else is read to see how it ended.
      if ((error as { type?: unknown } | null)?.type !== 'StripeInvalidRequestError') throw error;
      return this.sessionState(sessionId);
    }
  }

  async paymentMethods(userId: string): Promise<PaymentMethod[]> {
    const row = await this.db
      .selectFrom('billing_customers')
      .select('customer_id')
      .where('user_id', '=', userId)
      .where('payment_provider', '=', 'stripe')
      .executeTakeFirst();
    if (!row) return [];
    const methods = await this.stripe.customers.listPaymentMethods(row.customer_id, { limit: 20 });
    return methods.data.map((method) => ({
      id: method.id,
      type: method.type,
      brand: method.card?.brand ?? null,
      last4: method.card?.last4 ?? null,
      exp_month: method.card?.exp_month ?? null,
      exp_year: method.card?.exp_year ?? null,
    }));
  }

  /** The checkout session that produced a payment intent (a refund can arrive before the payment event). */
  async sessionForPayment(paymentIntent: string): Promise<Stripe.Checkout.Session | undefined> {
    const sessions = await this.stripe.checkout.sessions.list({ payment_intent: paymentIntent, limit: 1 });
    return sessions.data[0];
  }

  private async customerFor(userId: string, email: string): Promise<string> {
    const existing = await this.db
      .selectFrom('billing_customers')
      .select('customer_id')
      .where('user_id', '=', userId)
      .where('payment_provider', '=', 'stripe')
      .executeTakeFirst();
    if (existing) return existing.customer_id;
    const customer = await this.stripe.customers.create(
      { email, metadata: { user_id: userId } },
      { idempotencyKey: `customer-${userId}` },
    );
    await this.db
      .insertInto('billing_customers')
      .values({ user_id: userId, payment_provider: 'stripe', customer_id: customer.id, created_at: this.clock.now() })
      .onConflict((conflict) => conflict.columns(['user_id', 'payment_provider']).doNothing())
      .execute();
    return customer.id;
  }
}

/** Pure: a Checkout Session's status and payment_status → what it means for our order. */
export function stateOfSession(
  session: Pick<Stripe.Checkout.Session, 'status' | 'payment_status' | 'payment_intent' | 'amount_total' | 'currency'>,
): SessionState {
  if (session.status === 'expired') return { outcome: 'expired' };
  if (
    session.status === 'complete' &&
    (session.payment_status === 'paid' || session.payment_status === 'no_payment_required')
  ) {
    const intent = session.payment_intent;
    return {
      outcome: 'paid',
      paymentReference: typeof intent === 'string' ? intent : (intent?.id ?? null),
      totalMinor: session.amount_total ?? null,
      currency: session.currency ?? null,
    };
  }
  return { outcome: 'open' };
}

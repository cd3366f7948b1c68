import { GatewayError } from '../shared/errors.js';
import type { CheckoutSession, PaymentMethod, PaymentProvider, SessionState } from './payment-provider.js';

export function paymentsNotConfigured(): GatewayError {
  return new GatewayError(
    503,
    'service_unavailable',
    'payments_not_configured',
    'This gateway takes no payments: its operator has configured no payment provider ' +
      '(STRIPE_SECRET_KEY, or billing.payment_provider: sandbox for development). Ask them to add credits.',
  );
}

/** No payment provider configured: nothing can be bought; balances, orders and documents still read. */
export class NoPaymentProvider implements PaymentProvider {
  readonly name = 'none';

  async createCheckout(): Promise<CheckoutSession> {
    throw paymentsNotConfigured();
  }

  async sessionState(): Promise<SessionState> {
    return { outcome: 'open' };
  }

  /** With no provider, nothing can pay an order any more: a pending one is simply canceled. */
  async cancelCheckout(): Promise<SessionState> {
    return { outcome: 'expired' };
  }

  async paymentMethods(): Promise<PaymentMethod[]> {
    return [];
  }

  /** An order paid before the provider was removed cannot be paid back from here. */
  async refundPayment(): Promise<void> {
    throw paymentsNotConfigured();
  }
}

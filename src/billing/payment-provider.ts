/** A payment provider creates checkout sessions and tells us how they ended. Stripe and the sandbox implement it. */
export interface CheckoutRequest {
  orderId: string;
  userId: string;
  email: string;
  currency: string;
  /** What the buyer pays: amount + fee, in minor units. */
  totalMinor: number;
  description: string;
  successUrl: string;
  cancelUrl: string;
}

export interface CheckoutSession {
  sessionId: string;
  checkoutUrl: string;
}

/** How a session stands at the provider, for reconciling a pending order. */
export type SessionState =
  | { outcome: 'open' }
  | { outcome: 'paid'; paymentReference: string | null; totalMinor: number | null; currency: string | null }
  | { outcome: 'failed' | 'expired' };

export interface PaymentMethod {
  id: string;
  type: string;
  brand: string | null;
  last4: string | null;
  exp_month: number | null;
  exp_year: number | null;
}

export interface PaymentProvider {
  readonly name: 'stripe' | 'sandbox' | 'none';
  createCheckout(request: CheckoutRequest): Promise<CheckoutSession>;
  sessionState(sessionId: string): Promise<SessionState>;
  /**
   * Closes an open checkout session so it can no longer be paid, and says how it stands after:
   * `expired` when it was closed (or had been), `paid` when the buyer paid first.
   */
  cancelCheckout(sessionId: string): Promise<SessionState>;
  paymentMethods(userId: string): Promise<PaymentMethod[]>;
  /** Gives a paid order's money back at the provider (an administrator's refund); once per order. */
  refundPayment(orderId: string, paymentReference: string | null): Promise<void>;
}

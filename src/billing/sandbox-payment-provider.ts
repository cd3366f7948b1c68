import type { IdGenerator } from '../shared/ids.js';
import type {
  CheckoutRequest,
  CheckoutSession,
  PaymentMethod,
  PaymentProvider,
  SessionState,
} from './payment-provider.js';

/**
 * The built-in provider when Stripe is not configured (CONTRACT §5): the checkout page is ours,
 * and the signed-in user's own confirmation there is what pays the order. No money moves.
 */
export class SandboxPaymentProvider implements PaymentProvider {
  readonly name = 'sandbox';

  constructor(
    private readonly publicUrl: string,
    private readonly ids: IdGenerator,
  ) {}

  /** The return addresses ride on the checkout link, as Stripe keeps them with its session. */
  async createCheckout(request: CheckoutRequest): Promise<CheckoutSession> {
    const sessionId = this.ids.next('sbx_');
    const query = new URLSearchParams({ success_url: request.successUrl, cancel_url: request.cancelUrl });
    return { sessionId, checkoutUrl: `${this.publicUrl}/billing/sandbox/checkout/${sessionId}?${query}` };
  }

  /** Nothing happens to a sandbox session behind our back: it is open until the user acts (or it times out). */
  async sessionState(_sessionId: string): Promise<SessionState> {
    return { outcome: 'open' };
  }

  /** The sandbox page checks the order's status before confirming: nothing to close here. */
  async cancelCheckout(_sessionId: string): Promise<SessionState> {
    return { outcome: 'expired' };
  }

  async paymentMethods(_userId: string): Promise<PaymentMethod[]> {
    return [];
  }

  /** No money moved, so none goes back: the order and the ledger are all there is. */
  async refundPayment(_orderId: string, _paymentReference: string | null): Promise<void> {}
}

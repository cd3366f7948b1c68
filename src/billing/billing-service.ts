import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import { decimalToUnits } from '../shared/decimal.js';
import { ConflictError, GatewayError, InvalidRequestError, NotFoundError } from '../shared/errors.js';
import { currencyExponent, feeFor, type BillingConfig } from './billing-config.js';
import type { PurchaseLedger } from '../credits/purchase-ledger.js';
import { balanceLimitExceeded, MAX_BALANCE_NANOS } from '../credits/balance-limit.js';
import type { PaymentProvider, SessionState } from './payment-provider.js';
import { paymentsNotConfigured } from './no-payment-provider.js';
import * as orders from './order-repository.js';
import type { OrderRow } from './order-repository.js';
import type { OrderStatus } from './order-state.js';

export interface CheckoutInput {
  amount: number;
  currency?: string;
  success_url?: string;
  cancel_url?: string;
}

export interface BillingServiceDeps {
  store: Store;
  ledger: PurchaseLedger;
  provider: PaymentProvider;
  config: BillingConfig;
  clock: Clock;
  ids: IdGenerator;
  publicUrl: string;
  logger: Logger;
}

/** A sandbox checkout nobody confirms is expired after a day, like a Stripe session. */
const SANDBOX_SESSION_MS = 24 * 3600 * 1000;

/** Orders and their one-way moves; the only code that credits or debits the ledger for payments. */
export class BillingService {
  constructor(readonly deps: BillingServiceDeps) {}

  get provider(): PaymentProvider {
    return this.deps.provider;
  }

  async createCheckout(
    user: { id: string; email: string },
    input: CheckoutInput,
  ): Promise<{ order: OrderRow; checkoutUrl: string; sessionId: string }> {
    const { config, clock, ids, store } = this.deps;
    // Before the order is written: without a provider it could never be paid.
    if (this.deps.provider.name === 'none') throw paymentsNotConfigured();
    const currency = (input.currency ?? 'usd').toLowerCase();
    const rate = config.currencies.get(currency);
    if (!rate)
      throw new InvalidRequestError(
        `Invalid value for 'currency': ${JSON.stringify(input.currency ?? currency)}. Supported values are: ${[...config.currencies.keys()].map((code) => `'${code.toUpperCase()}'`).join(', ')} (either case).`,
        'currency',
        'invalid_currency',
      );
    // Bounds are in units of the order's currency (cents-based, as configured), checked before exact parsing.
    const scale = 10 ** (2 - currencyExponent(currency));
    const outOfRange = () =>
      new InvalidRequestError(
        `amount must be between ${config.minAmountMinor / 100} and ${config.maxAmountMinor / 100}.`,
        'amount',
        'amount_out_of_range',
      );
    if (input.amount * 100 > config.maxAmountMinor * 2) throw outOfRange();
    const amountMinor = toMinorUnits(input.amount, currency);
    if (amountMinor * scale < config.minAmountMinor || amountMinor * scale > config.maxAmountMinor) throw outOfRange();
    const feeMinor = feeFor(amountMinor, config.feeRatePpm);
    const now = clock.now();
    const creditNanos = amountMinor * rate.creditNanosPerMinor;
    // The balance cap (credits/balance-limit.ts) is enforced here, before anyone pays: a payment
    // taken is always credited. Pending checkouts of the last day count as if paid.
    const committed =
      (await this.deps.ledger.balanceNanos(user.id)) +
      (await orders.pendingCreditNanos(store.db, user.id, now - SANDBOX_SESSION_MS));
    if (!Number.isSafeInteger(creditNanos) || committed + creditNanos > MAX_BALANCE_NANOS)
      throw balanceLimitExceeded(
        committed,
        creditNanos,
        MAX_BALANCE_NANOS,
        'the balance and pending checkouts come to',
      );
    const order: OrderRow = {
      id: ids.next('ord_'),
      user_id: user.id,
      status: 'pending',
      payment_provider: this.deps.provider.name,
      currency,
      amount_minor: amountMinor,
      fee_minor: feeMinor,
      fee_rate_ppm: config.feeRatePpm,
      total_minor: amountMinor + feeMinor,
      credit_nanos: creditNanos,
      session_id: null,
      checkout_url: null,
      payment_reference: null,
      created_at: now,
      updated_at: now,
      paid_at: null,
      closed_at: null,
    };
    // The order exists before the session, so a webhook for the session always finds it.
    await orders.insertOrder(store.db, order);
    const session = await this.deps.provider.createCheckout({
      orderId: order.id,
      userId: user.id,
      email: user.email,
      currency,
      totalMinor: order.total_minor,
      description: `Credits for ${user.email}`,
      successUrl: input.success_url ?? `${this.deps.publicUrl}/billing/complete?order_id=${order.id}`,
      cancelUrl: input.cancel_url ?? `${this.deps.publicUrl}/billing/canceled?order_id=${order.id}`,
    });
    await orders.attachSession(store.db, order.id, session.sessionId, session.checkoutUrl, clock.now());
    return {
      order: { ...order, session_id: session.sessionId, checkout_url: session.checkoutUrl },
      checkoutUrl: session.checkoutUrl,
      sessionId: session.sessionId,
    };
  }

  /** The user's order; a pending one is first reconciled with the payment provider. */
  async orderStatus(userId: string, orderId: string): Promise<OrderRow> {
    const order = await this.userOrder(userId, orderId);
    if (order.status !== 'pending' || !order.session_id) return order;
    if (order.payment_provider === 'sandbox') {
      if (this.deps.clock.now() - order.created_at > SANDBOX_SESSION_MS) await this.close(order.id, 'expired');
    } else {
      const state = await this.deps.provider.sessionState(order.session_id).catch((error: unknown) => {
        this.deps.logger.warn({ err: error, orderId }, 'could not reconcile a pending order with the payment provider');
        return { outcome: 'open' } as SessionState;
      });
      await this.applySessionState(order, state);
    }
    return this.userOrder(userId, orderId);
  }

  async applySessionState(order: OrderRow, state: SessionState): Promise<void> {
    if (state.outcome === 'paid')
      await this.confirmPaid(order.id, state.paymentReference, {
        totalMinor: state.totalMinor,
        currency: state.currency,
      });
    else if (state.outcome === 'failed' || state.outcome === 'expired') await this.close(order.id, state.outcome);
  }

  async userOrder(userId: string, orderId: string): Promise<OrderRow> {
    const order = await orders.findUserOrder(this.deps.store.db, userId, orderId);
    if (!order) throw new NotFoundError(`No order ${orderId}.`, 'order_not_found', 'order_id');
    return order;
  }

  /**
   * pending → paid, then the credit. Idempotent end to end: the move is compare-and-set and the
   * ledger entry's reference is unique, so replays, races and a crash between the two steps all
   * end with exactly one credit (a replay after a crash finds the order paid and completes it).
   */
  async confirmPaid(
    orderId: string,
    paymentReference: string | null,
    paid: { totalMinor: number | null; currency: string | null } = { totalMinor: null, currency: null },
  ): Promise<'credited' | 'already' | 'rejected'> {
    const { store, clock, ledger, logger } = this.deps;
    const order = await orders.findOrder(store.db, orderId);
    if (!order) return 'rejected';
    if (
      (paid.totalMinor !== null && paid.totalMinor !== order.total_minor) ||
      (paid.currency !== null && paid.currency.toLowerCase() !== order.currency)
    ) {
      logger.error(
        { orderId, expected: [order.total_minor, order.currency], paid },
        'payment does not match the order; not crediting',
      );
      return 'rejected';
    }
    await orders.moveOrder(store.db, orderId, 'paid', clock.now(), { payment_reference: paymentReference });
    const current = await orders.findOrder(store.db, orderId);
    if (current?.status !== 'paid' && current?.status !== 'refunded') {
      logger.error(
        { orderId, status: current?.status },
        'payment confirmed for an order that is already closed; not crediting',
      );
      return 'rejected';
    }
    const applied = await ledger.creditPurchase(order.user_id, order.credit_nanos, `order:${order.id}`);
    if (applied)
      logger.info({ orderId, userId: order.user_id, creditNanos: order.credit_nanos }, 'order paid, credits added');
    return applied ? 'credited' : 'already';
  }

  /** pending → failed | expired | canceled. A no-op for an order that already moved on. */
  async close(orderId: string, to: Extract<OrderStatus, 'failed' | 'expired' | 'canceled'>): Promise<boolean> {
    return orders.moveOrder(this.deps.store.db, orderId, to, this.deps.clock.now());
  }

  /** paid → refunded, and the purchase taken back from the balance (once). */
  async refund(orderId: string): Promise<boolean> {
    const { store, clock, ledger } = this.deps;
    await orders.moveOrder(store.db, orderId, 'refunded', clock.now());
    const order = await orders.findOrder(store.db, orderId);
    if (order?.status !== 'refunded') return false;
    return ledger.debitRefund(order.user_id, order.credit_nanos, `order:${order.id}:refund`);
  }

  /**
   * An administrator's refund: the money goes back at the payment provider first, then the order
   * moves paid → refunded and the purchase leaves the balance (never below zero), once.
   */
  async refundByAdmin(orderId: string): Promise<OrderRow> {
    const { store } = this.deps;
    const order = await orders.findOrder(store.db, orderId);
    if (!order) throw new NotFoundError(`No order with the id ${orderId}.`, 'order_not_found', 'order_id');
    if (order.status !== 'paid')
      throw new ConflictError(
        `Order ${orderId} is ${order.status}; only a paid order can be refunded.`,
        'order_not_refundable',
      );
    await this.deps.provider.refundPayment(order.id, order.payment_reference);
    await this.refund(order.id);
    return (await orders.findOrder(store.db, orderId))!;
  }

  /**
   * The owner cancels a pending order: its checkout session is closed at the payment provider first,
   * so it cannot be paid afterwards. If the buyer paid meanwhile, the payment is applied (credits
   * added) and the cancel is a 409; a provider that cannot be reached leaves the order pending (503).
   */
  async cancelByUser(userId: string, orderId: string): Promise<OrderRow> {
    const order = await this.userOrder(userId, orderId);
    const notPending = (status: string) =>
      new ConflictError(`Order ${orderId} is ${status}; only a pending order can be canceled.`, 'order_not_pending');
    if (order.status !== 'pending') throw notPending(order.status);
    if (order.session_id) {
      const state = await this.deps.provider.cancelCheckout(order.session_id).catch((error: unknown) => {
        this.deps.logger.warn({ err: error, orderId }, 'could not close a checkout session at the payment provider');
        throw new GatewayError(
          503,
          'service_unavailable',
          'payment_provider_unavailable',
          'The payment provider could not be reached to close the checkout; the order is still pending. Try again shortly.',
          { headers: { 'retry-after': '10' } },
        );
      });
      if (state.outcome === 'paid') {
        await this.applySessionState(order, state);
        throw notPending((await this.userOrder(userId, orderId)).status);
      }
    }
    await this.close(orderId, 'canceled');
    const after = await this.userOrder(userId, orderId);
    if (after.status !== 'canceled') throw notPending(after.status);
    return after;
  }
}

/** A JSON number of currency units → exact minor units; more decimals than the currency has is a 400. */
function toMinorUnits(amount: number, currency: string): number {
  try {
    const units = decimalToUnits(amount, currencyExponent(currency));
    if (units <= 0) throw new RangeError('not positive');
    return units;
  } catch {
    throw new InvalidRequestError(
      `amount must be a positive number with at most ${currencyExponent(currency)} decimal places in ${currency.toUpperCase()}.`,
      'amount',
      'invalid_amount',
    );
  }
}

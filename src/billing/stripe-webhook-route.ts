import type { FastifyInstance } from 'fastify';
import type Stripe from 'stripe';
import { InvalidRequestError } from '../shared/errors.js';
import type { BillingService } from './billing-service.js';
import {
  findOrder,
  findOrderByPaymentReference,
  findOrderBySession,
  forgetEvent,
  recordEvent,
  type OrderRow,
} from './order-repository.js';
import { stateOfSession, type StripePaymentProvider } from './stripe-payment-provider.js';

/**
 * POST /api-account/billing/webhooks/stripe. The signature is checked on the raw bytes, so this
 * route lives in its own scope whose JSON parser keeps the body as a Buffer. Only a verified
 * event moves an order; each event id is handled once, and every move is idempotent anyway.
 */
export function registerStripeWebhook(
  app: FastifyInstance,
  billing: BillingService,
  provider: StripePaymentProvider,
  webhookSecret: string,
): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.post(
      '/api-account/billing/webhooks/stripe',
      { schema: { summary: 'Stripe webhook (signed events)', tags: ['billing'], security: [] } },
      async (request) => {
        const signature = request.headers['stripe-signature'];
        if (typeof signature !== 'string' || !Buffer.isBuffer(request.body))
          throw new InvalidRequestError(
            'Missing Stripe-Signature header or body.',
            'stripe-signature',
            'invalid_signature',
          );
        let event: Stripe.Event;
        try {
          event = provider.stripe.webhooks.constructEvent(request.body, signature, webhookSecret);
        } catch {
          throw new InvalidRequestError(
            'The Stripe signature does not match this payload.',
            'stripe-signature',
            'invalid_signature',
          );
        }
        const db = billing.deps.store.db;
        if (!(await recordEvent(db, event.id, event.type, billing.deps.clock.now())))
          return { received: true, duplicate: true };
        try {
          await handleEvent(event, billing, provider);
        } catch (error) {
          // Let Stripe retry: forget the event so the retry is not taken for a replay.
          await forgetEvent(db, event.id);
          throw error;
        }
        return { received: true };
      },
    );
  });
}

async function handleEvent(
  event: Stripe.Event,
  billing: BillingService,
  provider: StripePaymentProvider,
): Promise<void> {
  const db = billing.deps.store.db;
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
    case 'checkout.session.async_payment_failed':
    case 'checkout.session.expired': {
      const session = event.data.object;
      const order = await orderOfSession(billing, session);
      if (!order) return logUnknown(billing, event);
      if (event.type === 'checkout.session.async_payment_failed') await billing.close(order.id, 'failed');
      else if (event.type === 'checkout.session.expired') await billing.close(order.id, 'expired');
      // completed with payment_status "unpaid" is a delayed method: wait for async_payment_succeeded.
      else await billing.applySessionState(order, stateOfSession(session));
      return;
    }
    case 'charge.refunded': {
      const charge = event.data.object;
      // Partial refunds leave the order paid: credits are not divisible after they may have been spent.
      if (!charge.refunded) return;
      const intent = typeof charge.payment_intent === 'string' ? charge.payment_intent : charge.payment_intent?.id;
      if (!intent) return logUnknown(billing, event);
      let order = await findOrderByPaymentReference(db, intent);
      if (!order) {
        // The refund overtook the payment event: learn the payment from Stripe, then refund it.
        const session = await provider.sessionForPayment(intent);
        order = session ? await orderOfSession(billing, session) : undefined;
        if (!order || !session) return logUnknown(billing, event);
        await billing.applySessionState(order, stateOfSession(session));
      }
      await billing.refund(order.id);
      return;
    }
    default:
      return;
  }
}

async function orderOfSession(
  billing: BillingService,
  session: Stripe.Checkout.Session,
): Promise<OrderRow | undefined> {
  const db = billing.deps.store.db;
  const byMetadata = session.metadata?.order_id ? await findOrder(db, session.metadata.order_id) : undefined;
  const order = byMetadata ?? (await findOrderBySession(db, session.id));
  // An event must describe the session we opened for the order, not just name its id.
  return order && order.session_id === session.id ? order : undefined;
}

function logUnknown(billing: BillingService, event: Stripe.Event): void {
  billing.deps.logger.warn({ eventId: event.id, type: event.type }, 'Stripe event for no order of ours; ignored');
}

import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { NotFoundError } from '../shared/errors.js';
import type { BillingService } from './billing-service.js';
import { findOrderBySession } from './order-repository.js';
import { orderView } from './order-view.js';
import { OrderSchema } from './order-schema.js';
import { formatMoney } from './document-render.js';
import { checkoutPage, messagePage, SANDBOX_PAGE_POLICY } from './sandbox-checkout-page.js';

/**
 * A return address from the checkout link, kept only when it points back at this gateway (the
 * console or the gateway's own pages): the link is shareable, so it must not redirect elsewhere.
 */
function sameOrigin(url: string | undefined, request: FastifyRequest): string | undefined {
  if (!url) return undefined;
  try {
    const target = new URL(url);
    return target.host === request.headers.host && (target.protocol === 'http:' || target.protocol === 'https:')
      ? target.toString()
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The sandbox provider's checkout: a page of ours where the signed-in owner confirms or cancels.
 * Confirming is the "verified payment event" of the sandbox (CONTRACT §5); it goes through the
 * same idempotent moves as a Stripe webhook.
 */
export function registerSandboxCheckout(
  app: FastifyInstance,
  billing: BillingService,
  signedIn: preHandlerAsyncHookHandler,
): void {
  const db = billing.deps.store.db;
  const hidden = { hide: true };

  app.get<{ Params: { session_id: string }; Querystring: { success_url?: string; cancel_url?: string } }>(
    '/billing/sandbox/checkout/:session_id',
    { schema: hidden },
    async (request, reply) => {
      const order = await findOrderBySession(db, request.params.session_id);
      reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-security-policy', SANDBOX_PAGE_POLICY);
      if (!order || order.payment_provider !== 'sandbox')
        return reply.status(404).send(messagePage('Checkout not found', 'This checkout link is not valid.'));
      return checkoutPage({
        sessionId: request.params.session_id,
        status: order.status,
        amount: formatMoney(order.amount_minor, order.currency),
        fee: formatMoney(order.fee_minor, order.currency),
        total: formatMoney(order.total_minor, order.currency),
        successUrl: sameOrigin(request.query.success_url, request),
        cancelUrl: sameOrigin(request.query.cancel_url, request),
      });
    },
  );

  for (const action of ['confirm', 'cancel'] as const) {
    app.post<{ Params: { session_id: string } }>(
      `/api-account/billing/sandbox/:session_id/${action}`,
      {
        schema: {
          summary: `Sandbox checkout: ${action} the payment`,
          tags: ['billing'],
          response: {
            200: OrderSchema,
            ...Object.fromEntries([401, 403, 404, 409].map((status) => [status, { $ref: 'ErrorEnvelope#' }])),
          },
        },
        preValidation: signedIn,
      },
      async (request) => {
        const order = await findOrderBySession(db, request.params.session_id);
        if (!order || order.user_id !== request.user!.id || order.payment_provider !== 'sandbox') {
          throw new NotFoundError('No such checkout session.', 'session_not_found', 'session_id');
        }
        if (action === 'confirm') await billing.confirmPaid(order.id, `sandbox:${order.session_id}`);
        else await billing.cancelByUser(order.user_id, order.id);
        return orderView(await billing.userOrder(order.user_id, order.id));
      },
    );
  }

  app.get('/billing/complete', { schema: hidden }, async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', SANDBOX_PAGE_POLICY)
      .send(
        messagePage(
          'Thank you',
          'Your payment was received. Credits appear on your balance as soon as the payment is confirmed.',
        ),
      ),
  );
  app.get('/billing/canceled', { schema: hidden }, async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', SANDBOX_PAGE_POLICY)
      .send(messagePage('Checkout canceled', 'Nothing was charged. You can close this page.')),
  );
}

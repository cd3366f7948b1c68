import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { BillingService } from '../../billing/billing-service.js';
import type { DocumentService } from '../../billing/document-service.js';
import { listPaidOrders, listUserOrders } from '../../billing/order-repository.js';
import { orderView } from '../../billing/order-view.js';
import { nanosToUsdNumber } from '../../metering/money.js';
import { unitsToDecimal } from '../../shared/decimal.js';
import { ConflictError } from '../../shared/errors.js';
import {
  BillingSummarySchema,
  CheckoutBodySchema,
  CheckoutResponseSchema,
  DocumentBodySchema,
  DocumentLinkSchema,
  OrderIdParamsSchema,
  OrderPageSchema,
  OrdersQuerySchema,
} from './billing-schemas.js';
import { OrderSchema } from '../../billing/order-schema.js';

const errors = {
  400: { $ref: 'ErrorEnvelope#' },
  401: { $ref: 'ErrorEnvelope#' },
  404: { $ref: 'ErrorEnvelope#' },
  409: { $ref: 'ErrorEnvelope#' },
  503: { $ref: 'ErrorEnvelope#' },
};

/** Spec §4.8 billing endpoints under /api-account/user/billing, for the signed-in user. */
export function registerBillingRoutes(app: FastifyInstance, billing: BillingService, documents: DocumentService): void {
  const { store, config, ledger } = billing.deps;
  const tags = ['billing'];

  app.get(
    '/user/billing',
    {
      schema: {
        summary: 'Plan, credit balance, fee rate, payment methods and invoices',
        tags,
        response: { 200: BillingSummarySchema, ...errors },
      },
    },
    async (request) => {
      const user = request.user!;
      const [balance, paid, paymentMethods] = await Promise.all([
        ledger.balanceNanos(user.id),
        listPaidOrders(store.db, user.id, 100),
        billing.provider.paymentMethods(user.id).catch((error: unknown) => {
          request.log.warn({ err: error }, 'could not list payment methods');
          return [];
        }),
      ]);
      return {
        plan: config.plan,
        credit_balance: nanosToUsdNumber(balance),
        currency: 'USD',
        platform_fee_rate: Number(unitsToDecimal(config.feeRatePpm, 6)),
        payment_provider: billing.provider.name,
        payment_methods: paymentMethods,
        invoices: paid.map((order) => ({ ...orderView(order), documents: ['invoice', 'receipt'] })),
      };
    },
  );

  app.post<{ Body: Static<typeof CheckoutBodySchema> }>(
    '/user/billing/create-checkout',
    {
      schema: {
        summary: 'Start buying credits: a pending order and a checkout session',
        tags,
        body: CheckoutBodySchema,
        response: { 200: CheckoutResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { order, checkoutUrl, sessionId } = await billing.createCheckout(request.user!, request.body);
      const view = orderView(order);
      return {
        order_id: order.id,
        checkout_url: checkoutUrl,
        session_id: sessionId,
        status: order.status,
        amount: view.amount,
        fee: view.fee,
        total: view.total,
        currency: view.currency,
      };
    },
  );

  app.get<{ Params: Static<typeof OrderIdParamsSchema> }>(
    '/user/billing/payment-status/:order_id',
    {
      schema: {
        summary: 'One order, reconciled with the payment provider while pending',
        tags,
        params: OrderIdParamsSchema,
        response: { 200: OrderSchema, ...errors },
      },
    },
    async (request) => orderView(await billing.orderStatus(request.user!.id, request.params.order_id)),
  );

  app.get<{ Querystring: Static<typeof OrdersQuerySchema> }>(
    '/user/billing/orders',
    {
      schema: {
        summary: 'The user’s orders, newest first',
        tags,
        querystring: OrdersQuerySchema,
        response: { 200: OrderPageSchema, ...errors },
      },
    },
    async (request) => {
      // The schema fills both defaults in; the fallbacks only satisfy the optional types.
      const { limit = 20, offset = 0 } = request.query;
      const { rows, total } = await listUserOrders(store.db, request.user!.id, limit, offset);
      return { data: rows.map(orderView), total, limit, offset };
    },
  );

  app.post<{ Body: Static<typeof DocumentBodySchema> }>(
    '/user/billing/document',
    {
      schema: {
        summary: 'A signed, expiring link to the invoice or receipt PDF of a paid order',
        tags,
        body: DocumentBodySchema,
        response: { 200: DocumentLinkSchema, ...errors },
      },
    },
    async (request) => {
      const type = request.body.type ?? 'receipt';
      const order = await billing.userOrder(request.user!.id, request.body.order_id);
      if (order.status !== 'paid' && order.status !== 'refunded') {
        throw new ConflictError(
          `Order ${order.id} is ${order.status}; documents exist only for paid orders.`,
          'order_not_paid',
        );
      }
      return documents.link(order, type);
    },
  );

  app.post<{ Params: Static<typeof OrderIdParamsSchema> }>(
    '/user/billing/orders/:order_id/cancel',
    {
      schema: {
        summary: 'Cancel a pending order: its checkout is closed at the payment provider and can no longer be paid',
        tags,
        params: OrderIdParamsSchema,
        response: { 200: OrderSchema, ...errors },
      },
    },
    async (request) => orderView(await billing.cancelByUser(request.user!.id, request.params.order_id)),
  );
}

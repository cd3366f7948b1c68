import { Type } from '@sinclair/typebox';
import { limitParameter, offsetParameter } from '../paging-schemas.js';
import { OrderSchema } from '../../billing/order-schema.js';

const HttpUrl = Type.String({
  format: 'uri',
  pattern: '^https?://',
  maxLength: 2048,
  description: 'an absolute http(s) URL',
});

export const CheckoutBodySchema = Type.Object(
  {
    amount: Type.Number({
      exclusiveMinimum: 0,
      description: 'Credits to buy, in the currency (a fee is added on top).',
    }),
    currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$', description: 'an ISO 4217 code such as usd' })),
    success_url: Type.Optional(HttpUrl),
    cancel_url: Type.Optional(HttpUrl),
  },
  { additionalProperties: false },
);

export const CheckoutResponseSchema = Type.Object({
  order_id: Type.String(),
  checkout_url: Type.String(),
  session_id: Type.String(),
  status: Type.String(),
  amount: Type.Number(),
  fee: Type.Number(),
  total: Type.Number(),
  currency: Type.String(),
});

export const OrderIdParamsSchema = Type.Object({ order_id: Type.String({ minLength: 1, maxLength: 100 }) });

export const OrdersQuerySchema = Type.Object(
  {
    limit: limitParameter(100, 20),
    offset: offsetParameter(),
  },
  { additionalProperties: false },
);

export const DocumentBodySchema = Type.Object(
  {
    order_id: Type.String({ minLength: 1, maxLength: 100 }),
    type: Type.Optional(
      Type.Union([Type.Literal('invoice'), Type.Literal('receipt')], { description: 'invoice or receipt' }),
    ),
  },
  { additionalProperties: false },
);

export const OrderPageSchema = Type.Object({
  data: Type.Array(OrderSchema),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
});

export const BillingSummarySchema = Type.Object({
  plan: Type.String(),
  credit_balance: Type.Number({ description: 'USD' }),
  currency: Type.String({ description: 'ISO 4217, capitals: USD' }),
  platform_fee_rate: Type.Number({ description: 'added to credit purchases: 0.05 is 5 %' }),
  payment_provider: Type.String({ description: 'stripe or sandbox' }),
  payment_methods: Type.Array(
    Type.Object({
      id: Type.String(),
      type: Type.String(),
      brand: Type.Union([Type.String(), Type.Null()]),
      last4: Type.Union([Type.String(), Type.Null()]),
      exp_month: Type.Union([Type.Integer(), Type.Null()]),
      exp_year: Type.Union([Type.Integer(), Type.Null()]),
    }),
  ),
  invoices: Type.Array(
    Type.Composite([
      OrderSchema,
      Type.Object({ documents: Type.Array(Type.Union([Type.Literal('invoice'), Type.Literal('receipt')])) }),
    ]),
    { description: 'paid and refunded orders, newest first' },
  ),
});

export const DocumentLinkSchema = Type.Object({
  order_id: Type.String(),
  type: Type.Union([Type.Literal('invoice'), Type.Literal('receipt')]),
  document_number: Type.String(),
  url: Type.String({ description: 'signed; no other credential needed until expires_at' }),
  expires_at: Type.String(),
});
